// Memory regions: registration, the published MR table, the checks every remote
// access goes through, and direct placement into a same-host peer's memory.
#include "dma.h"
#include "sv.h"

#include <hcts/mutant.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>
#include <utility>

namespace sv {

namespace {

// Finds the mapping that holds [addr, addr+len); records it when it is a
// MAP_SHARED memfd or /dev/shm file a peer can map itself. Never touches pages.
void find_shareable(uint64_t addr, uint64_t len, MrView *v)
{
    FILE *f = std::fopen("/proc/self/maps", "re");
    if (!f)
        return;
    char line[512];
    while (std::fgets(line, sizeof line, f)) {
        uint64_t start = 0, end = 0, off = 0, ino = 0;
        char perms[8] = {}, dev[16] = {};
        int pos = 0;
        if (std::sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %15s %" SCNu64 " %n", &start, &end, perms, &off,
                        dev, &ino, &pos) < 6)
            continue;
        if (addr < start || addr >= end)
            continue;
        const char *path = line + pos;
        bool shared = perms[3] == 's';
        bool file_ok = std::strncmp(path, "/memfd:", 7) == 0 || std::strncmp(path, "/dev/shm/", 9) == 0;
        if (shared && file_ok && addr + len <= end && ino != 0) {
            v->vma_start = start;
            v->vma_end = end;
            v->vma_off = off;
            v->vma_ino = ino;
        }
        break;
    }
    std::fclose(f);
}

} // namespace

namespace {

// The process's published MR table (a memfd). A forked child makes its own: the parent's
// mapping is shared with the parent, which reads and same-host peers write it.
struct LocalTable {
    std::once_flag made;
    MrTable *t = nullptr;
    int fd = -1;
    LocalTable *inherited = nullptr; // in a forked child: the parent's (unmapped here)
};
std::atomic<LocalTable *> g_local{new LocalTable};

void make_table(LocalTable *l)
{
    // Shared with same-host peers through its memfd. Without one (no fds, shared memory
    // exhausted) the table is private memory: peers then reach this process over TCP
    // (a table fd of -1 is never same-host), slower but correct.
    int fd = memfd_create("softverbs-mrtable", MFD_CLOEXEC);
    void *p = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, sizeof(MrTable)) == 0)
        p = mmap(nullptr, sizeof(MrTable), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        std::fprintf(stderr,
                     "softverbs: cannot create the MR table in shared memory (memfd): %s; peers on this host "
                     "will reach this process over TCP\n",
                     std::strerror(errno));
        if (fd >= 0)
            close(fd);
        fd = -1;
        p = mmap(nullptr, sizeof(MrTable), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            std::fprintf(stderr, "softverbs: cannot allocate the MR table (%zu bytes): %s\n", sizeof(MrTable),
                         std::strerror(errno));
            std::abort();
        }
    }
    auto *tab = static_cast<MrTable *>(p);
    tab->pid = static_cast<uint32_t>(getpid());
    tab->nentries = kMaxMr;
    std::random_device rd;
    tab->cookie = (uint64_t{rd()} << 32 | rd()) | 1;
    tab->magic = kMrMagic;
    l->fd = fd;
    l->t = tab;
}

LocalTable &local()
{
    LocalTable *l = g_local.load(std::memory_order_relaxed);
    std::call_once(l->made, make_table, l);
    return *l;
}

} // namespace

MrTable *local_mr_table() { return local().t; }

int local_mr_table_fd() { return local().fd; }

void mr_after_fork_in_child()
{
    LocalTable *parent = g_local.load();
    if (parent->t != nullptr) // the child's mapping and descriptor only: the parent keeps its table
        munmap(std::exchange(parent->t, nullptr), sizeof(MrTable));
    if (parent->fd >= 0)
        close(std::exchange(parent->fd, -1));
    auto *own = new LocalTable;
    own->inherited = parent;
    g_local.store(own);
}

bool mr_lookup(const MrTable *t, uint32_t key, MrView *out)
{
    uint32_t idx = key & (kMaxMr - 1);
    if (!t || idx == 0 || key == 0)
        return false;
    const MrEntry &e = t->e[idx];
    if (e.key.load(std::memory_order_acquire) != key)
        return false;
    out->access = e.access;
    out->pd = e.pd;
    out->addr = e.addr;
    out->len = e.len;
    out->vma_start = e.vma_start;
    out->vma_end = e.vma_end;
    out->vma_off = e.vma_off;
    out->vma_ino = e.vma_ino;
    // Seqlock-style re-check against a concurrent (de)registration in the owner process.
#if !defined(__SANITIZE_THREAD__) // TSan cannot model fences; in-process lookups hold the lock anyway
    std::atomic_thread_fence(std::memory_order_acquire);
#endif
    return e.key.load(std::memory_order_acquire) == key;
}

uint32_t pd_handle(const ibv_pd *pd) { return pd ? pd->handle : 0; }

int mr_check(const MrView &v, uint64_t addr, uint64_t len, uint32_t need)
{
    if ((v.access & need) != need && !hcts::mutant("sv_mr_access_ignored")) // Mutant: access bits unchecked.
        return -1;
    if (hcts::mutant("sv_rkey_bound_off_by_one")) {
        // Mutant: the end bound is off by one: a range one byte past the MR's end passes.
        if (addr < v.addr || len > v.len + 1 || addr - v.addr > v.len + 1 - len)
            return -1;
        return 0;
    }
    if (addr < v.addr || len > v.len || addr - v.addr > v.len - len)
        return -1;
    return 0;
}

PeerProc::~PeerProc()
{
    for (auto &[k, p] : maps)
        if (p)
            munmap(p, std::get<1>(k) - std::get<0>(k));
    if (table)
        munmap(const_cast<MrTable *>(table), sizeof(MrTable));
}

namespace {

uint8_t *peer_mapping(PeerProc *p, const MrView &v)
{
    if (!p->allow_map || v.vma_ino == 0)
        return nullptr;
    auto key = std::make_tuple(v.vma_start, v.vma_end, v.vma_off, v.vma_ino);
    auto it = p->maps.find(key);
    if (it != p->maps.end())
        return it->second;
    char path[96];
    std::snprintf(path, sizeof path, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, p->pid, v.vma_start, v.vma_end);
    uint8_t *base = nullptr;
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd >= 0) {
        void *m = mmap(nullptr, v.vma_end - v.vma_start, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                       static_cast<off_t>(v.vma_off));
        if (m != MAP_FAILED)
            base = static_cast<uint8_t *>(m);
        close(fd);
    } else {
        log(1, "cannot open %s (%s); falling back to process_vm_writev", path, std::strerror(errno));
    }
    p->maps[key] = base; // a failure is remembered too: CMA from then on
    return base;
}

} // namespace

int peer_write_locked(PeerProc *p, const MrView &v, uint64_t raddr, const void *src, size_t len)
{
    if (len == 0)
        return 0;
    if (uint8_t *base = peer_mapping(p, v)) {
        if (hcts::mutant("sv_segment_tail_lost")) {
            // Mutant: copied in 64 KiB segments, and the partial last segment is forgotten.
            constexpr size_t kSeg = 65536;
            if (len < kSeg)
                dma_copy(base + (raddr - v.vma_start), src, len);
            for (size_t off = 0; off + kSeg <= len; off += kSeg)
                dma_copy(base + (raddr - v.vma_start) + off, static_cast<const uint8_t *>(src) + off, kSeg);
            return 0;
        }
        dma_copy(base + (raddr - v.vma_start), src, len);
        return 0;
    }
    iovec l{const_cast<void *>(src), len}, r{reinterpret_cast<void *>(raddr), len};
    size_t done = 0;
    // Mutant: every 64 KiB piece of a cross-process write lands at the range's start.
    const bool pieces_at_start = hcts::mutant("sv_cma_pieces_at_start");
    while (done < len) {
        l.iov_base = static_cast<uint8_t *>(const_cast<void *>(src)) + done;
        l.iov_len = pieces_at_start ? std::min(len - done, size_t{64} << 10) : len - done;
        r.iov_base = reinterpret_cast<void *>(raddr + (pieces_at_start ? 0 : done));
        r.iov_len = l.iov_len;
        ssize_t n = process_vm_writev(p->pid, &l, 1, &r, 1, 0);
        if (n <= 0)
            return errno == ESRCH ? IBV_WC_RETRY_EXC_ERR : IBV_WC_REM_ACCESS_ERR;
        done += static_cast<size_t>(n);
    }
    return 0;
}

int peer_read_locked(PeerProc *p, const MrView &v, uint64_t raddr, void *dst, size_t len)
{
    if (len == 0)
        return 0;
    if (uint8_t *base = peer_mapping(p, v)) {
        dma_copy(dst, base + (raddr - v.vma_start), len);
        return 0;
    }
    size_t done = 0;
    while (done < len) {
        iovec l{static_cast<uint8_t *>(dst) + done, len - done}, r{reinterpret_cast<void *>(raddr + done), len - done};
        ssize_t n = process_vm_readv(p->pid, &l, 1, &r, 1, 0);
        if (n <= 0)
            return errno == ESRCH ? IBV_WC_RETRY_EXC_ERR : IBV_WC_REM_ACCESS_ERR;
        done += static_cast<size_t>(n);
    }
    return 0;
}

} // namespace sv

using namespace sv;

namespace {

constexpr unsigned kKnownAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                                  IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED |
                                  IBV_ACCESS_ON_DEMAND | IBV_ACCESS_HUGETLB | IBV_ACCESS_RELAXED_ORDERING;

ibv_mr *reg_mr_common(ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned access)
{
    if (!pd || (!addr && length) || length == 0 || length > kMaxMrSize) {
        errno = EINVAL;
        return nullptr;
    }
    access &= ~static_cast<unsigned>(IBV_ACCESS_OPTIONAL_RANGE);
    if (access & ~kKnownAccess) {
        log(1, "ibv_reg_mr: access 0x%x has unknown bits", access);
        errno = EINVAL;
        return nullptr;
    }
    // As on hardware: remote write or atomic requires local write.
    if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) && !(access & IBV_ACCESS_LOCAL_WRITE)) {
        errno = EINVAL;
        return nullptr;
    }
    if (iova != reinterpret_cast<uintptr_t>(addr)) {
        // Remote addresses are virtual addresses in this emulation.
        errno = EOPNOTSUPP;
        return nullptr;
    }
    MrView v;
    find_shareable(reinterpret_cast<uintptr_t>(addr), length, &v);
    MrTable *t = local_mr_table();
    Global &g = G();
    std::lock_guard lk(g.mu);
    uint32_t idx = 0;
    if (!g.mr_free.empty()) {
        idx = g.mr_free.back();
        g.mr_free.pop_back();
    } else if (g.mrs.size() < kMaxMr) {
        if (g.mrs.empty())
            g.mrs.push_back(nullptr); // index 0 is never used
        idx = static_cast<uint32_t>(g.mrs.size());
        g.mrs.push_back(nullptr);
    } else {
        errno = ENOMEM;
        return nullptr;
    }
    uint32_t gen = ++g.mr_gen[idx]; // 1 .. kMrMaxGen; an index at kMrMaxGen is retired on deregistration
    auto m = std::make_unique<Mr>();
    m->index = idx;
    uint32_t key = gen << kMrIndexBits | idx;
    m->mr.context = pd->context;
    m->mr.pd = pd;
    m->mr.addr = addr;
    m->mr.length = length;
    m->mr.handle = idx;
    m->mr.lkey = key;
    m->mr.rkey = key;
    MrEntry &e = t->e[idx];
    e.access = access;
    e.pd = pd_handle(pd);
    e.addr = reinterpret_cast<uintptr_t>(addr);
    e.len = length;
    e.vma_start = v.vma_start;
    e.vma_end = v.vma_end;
    e.vma_off = v.vma_off;
    e.vma_ino = v.vma_ino;
    e.key.store(key, std::memory_order_release);
    g.mrs[idx] = m.get();
    log(2, "reg_mr %p+%zu key 0x%x access 0x%x shareable %d", addr, length, key, access, v.vma_ino != 0);
    return &m.release()->mr;
}

} // namespace

extern "C" {

#undef ibv_reg_mr
#undef ibv_reg_mr_iova

ibv_mr *ibv_reg_mr(ibv_pd *pd, void *addr, size_t length, int access)
{
    return guard_null("ibv_reg_mr", [&]() -> ibv_mr * {
        return reg_mr_common(pd, addr, length, reinterpret_cast<uintptr_t>(addr), static_cast<unsigned>(access));
    });
}

ibv_mr *ibv_reg_mr_iova(ibv_pd *pd, void *addr, size_t length, uint64_t iova, int access)
{
    return guard_null("ibv_reg_mr_iova", [&]() -> ibv_mr * {
        return reg_mr_common(pd, addr, length, iova, static_cast<unsigned>(access));
    });
}

ibv_mr *ibv_reg_mr_iova2(ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access)
{
    return guard_null("ibv_reg_mr_iova2", [&]() -> ibv_mr * { return reg_mr_common(pd, addr, length, iova, access); });
}

int ibv_dereg_mr(ibv_mr *mr)
{
    return guard_rc("ibv_dereg_mr", [&]() -> int {
        if (mr && fork_inherited(mr->context))
            return EPERM;
        if (!mr)
            return EINVAL;
        Global &g = G();
        std::unique_ptr<Mr> m(reinterpret_cast<Mr *>(mr)); // ibv_mr is Mr's first member
        std::lock_guard lk(g.mu);
        MrEntry &e = local_mr_table()->e[m->index];
        e.key.store(0); // seq_cst: pairs with the peers' inflight increment, then key re-check
        // Same-host peers still placing data into (or reading) this MR finish first; a peer
        // that died mid-copy is given up on after a while rather than hanging us.
        const auto &inflight = local_mr_table()->inflight[m->index].n;
        for (auto end = Clock::now() + std::chrono::seconds(5); inflight.load() != 0;) {
            if (Clock::now() > end) {
                log(1, "ibv_dereg_mr: a same-host peer stays in flight on MR index %u; giving up waiting", m->index);
                break;
            }
            std::this_thread::yield();
        }
        g.mrs[m->index] = nullptr;
        // Keys never repeat: an index whose generations are used up is never handed out again.
        if (g.mr_gen[m->index] < kMrMaxGen)
            g.mr_free.push_back(m->index);
        return 0;
    });
}

int ibv_rereg_mr(ibv_mr *, int, ibv_pd *, void *, size_t, int)
{
    errno = EOPNOTSUPP;
    return IBV_REREG_MR_ERR_INPUT;
}

} // extern "C"
