// HcclCommDestroy while write-with-notify tasks are in flight: the
// device program keeps writing to the peer while the host destroys the writer's
// comm. Before the fix a task queued behind the destroy ran on the freed comm
// (heap use after free in data_path.cpp; a crash in most runs). Now the writes
// are refused (HCCL_E_PARA) once the handles are gone, queued ones fail, and
// the peer is unharmed.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>

#include "verbs_job.h"

using namespace hcts_test;
using namespace std::chrono_literals;

TEST(DestroyInFlight, WriteWithNotifyTasksWhileTheWriterIsDestroyed)
{
    for (int i = 0; i < 5; ++i) {
        Job job(2);
        ASSERT_EQ(job.init_result(), HCCL_SUCCESS);
        Mesh mesh;
        ASSERT_EQ(build_mesh(job, mesh), HCCL_SUCCESS);
        const Buffer b0 = buffer_of(job[0]);
        const Buffer b1 = buffer_of(job[1]);
        const HcclComm writer_comm = job[0];
        std::atomic<uint64_t> accepted{0};
        auto program = std::async(std::launch::async, [&] {
            HcclResult launch_rc = HCCL_SUCCESS;
            const auto r = launch(
                writer_comm,
                [&] {
                    int32_t rc = HCCL_SUCCESS;
                    for (uint64_t n = 0; rc == HCCL_SUCCESS && n < 200000; ++n) {
                        rc = HcommWriteWithNotifyOnThread(mesh.thread[0], mesh.channel[0][1], b1.base + 4096, b0.base,
                                                          64 * 1024, 1);
                        if (rc == HCCL_SUCCESS)
                            ++accepted;
                    }
                    return static_cast<uint32_t>(rc);
                },
                20000, &launch_rc);
            return r.programReturn;
        });
        while (accepted < 8)
            std::this_thread::yield();
        auto destroyed = std::async(std::launch::async, [&] { return job.destroy(0); });
        if (destroyed.wait_for(30s) != std::future_status::ready ||
            program.wait_for(30s) != std::future_status::ready) {
            std::fprintf(stderr, "HANG: destroy or the writing program did not end within 30 s\n");
            std::fflush(stderr);
            std::_Exit(3);
        }
        EXPECT_EQ(destroyed.get(), HCCL_SUCCESS);
        EXPECT_EQ(program.get(), static_cast<uint32_t>(HCCL_E_PARA))
            << "after the destroy the writer's handles are refused";
        // The peer lives on: its notify may be set or not, its calls still work.
        int32_t set = -1;
        EXPECT_EQ(HcommRefPeekNotify(job[1], mesh.channel[1][0], 1, &set), HCCL_SUCCESS);
        EXPECT_EQ(HcommThreadJoin(mesh.thread[0], 0), HCCL_E_PARA);
    }
}
