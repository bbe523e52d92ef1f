// Events and notifies: records and waits as tasks of streams, host synchronisation on
// events, timeouts and refusals (acl_runtime/README.md, Events and notifies).
#include <string>
#include <thread>

#include "acl_test.h"

namespace {

using acl_test::last_error;

class Events : public acl_test::OnDevice {
  protected:
    void SetUp() override
    {
        acl_test::OnDevice::SetUp();
        if (IsSkipped())
            return;
        ASSERT_EQ(aclrtCreateStream(&a_), ACL_SUCCESS) << last_error();
        ASSERT_EQ(aclrtCreateStream(&b_), ACL_SUCCESS) << last_error();
        ASSERT_EQ(aclrtCreateEvent(&event_), ACL_SUCCESS) << last_error();
        ASSERT_EQ(aclrtCreateNotify(&gate_, 0), ACL_SUCCESS) << last_error();
    }
    void TearDown() override
    {
        if (!IsSkipped()) {
            // Whatever a test left waiting on the gate is released.
            EXPECT_EQ(aclrtRecordNotify(gate_, nullptr), ACL_SUCCESS) << last_error();
            EXPECT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS) << last_error();
            (void)aclrtSynchronizeStream(a_);
            (void)aclrtSynchronizeStream(b_);
            EXPECT_EQ(aclrtDestroyStream(a_), ACL_SUCCESS) << last_error();
            EXPECT_EQ(aclrtDestroyStream(b_), ACL_SUCCESS) << last_error();
            EXPECT_EQ(aclrtDestroyEvent(event_), ACL_SUCCESS) << last_error();
            EXPECT_EQ(aclrtDestroyNotify(gate_), ACL_SUCCESS) << last_error();
        }
        acl_test::OnDevice::TearDown();
    }
    aclrtEventRecordedStatus status()
    {
        aclrtEventRecordedStatus s = static_cast<aclrtEventRecordedStatus>(7);
        EXPECT_EQ(aclrtQueryEventStatus(event_, &s), ACL_SUCCESS) << last_error();
        return s;
    }
    aclrtStream a_ = nullptr;
    aclrtStream b_ = nullptr;
    aclrtEvent event_ = nullptr;
    aclrtNotify gate_ = nullptr; // holds a stream until something records it
};

TEST_F(Events, RecordRunsInStreamOrder)
{
    ASSERT_EQ(aclrtWaitAndResetNotify(gate_, a_, 0), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtRecordEvent(event_, a_), ACL_SUCCESS) << last_error();
    EXPECT_EQ(status(), ACL_EVENT_RECORDED_STATUS_NOT_READY) << "the record is behind the gate";
    EXPECT_EQ(aclrtSynchronizeEventWithTimeout(event_, 0), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    EXPECT_EQ(aclrtSynchronizeEventWithTimeout(event_, 50), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    EXPECT_NE(last_error().find("has not run after 50 ms"), std::string::npos);
    ASSERT_EQ(aclrtRecordNotify(gate_, b_), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtSynchronizeEvent(event_), ACL_SUCCESS) << last_error();
    EXPECT_EQ(status(), ACL_EVENT_RECORDED_STATUS_COMPLETE);
    EXPECT_EQ(aclrtSynchronizeStream(a_), ACL_SUCCESS) << last_error();
}

TEST_F(Events, StreamWaitsForTheLatestRecord)
{
    // a: gate, record; b: wait for the record, then record the notify `done`.
    aclrtNotify done = nullptr;
    ASSERT_EQ(aclrtCreateNotify(&done, 0), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtWaitAndResetNotify(gate_, a_, 0), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtRecordEvent(event_, a_), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtStreamWaitEvent(b_, event_), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtRecordNotify(done, b_), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(b_, 100), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
        << "stream b ran past its wait before the event was recorded";
    ASSERT_EQ(aclrtRecordNotify(gate_, nullptr), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(b_, 10000), ACL_SUCCESS) << last_error();
    // `done` was recorded: a wait for it returns at once.
    ASSERT_EQ(aclrtWaitAndResetNotify(done, a_, 10000), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtSynchronizeStream(a_), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtDestroyNotify(done), ACL_SUCCESS) << last_error();
}

TEST_F(Events, NeverRecordedIsComplete)
{
    EXPECT_EQ(status(), ACL_EVENT_RECORDED_STATUS_COMPLETE);
    EXPECT_EQ(aclrtSynchronizeEvent(event_), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtStreamWaitEvent(a_, event_), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtSynchronizeStreamWithTimeout(a_, 10000), ACL_SUCCESS) << last_error();
}

TEST_F(Events, NotifyWaitTimesOutAtSynchronisation)
{
    ASSERT_EQ(aclrtWaitAndResetNotify(gate_, a_, 30), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtSynchronizeStream(a_), ACL_ERROR_RT_WAIT_TIMEOUT);
    EXPECT_NE(last_error().find("was not recorded within 30 ms"), std::string::npos) << last_error();
    EXPECT_EQ(aclrtSynchronizeStream(a_), ACL_SUCCESS) << "the failure is reported once";
}

TEST_F(Events, NotifyIsBinary)
{
    // Two records before any wait set it once: the second wait finds nothing.
    ASSERT_EQ(aclrtRecordNotify(gate_, a_), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtRecordNotify(gate_, a_), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtSynchronizeStream(a_), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtWaitAndResetNotify(gate_, b_, 5000), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtSynchronizeStream(b_), ACL_SUCCESS) << last_error();
    ASSERT_EQ(aclrtWaitAndResetNotify(gate_, b_, 30), ACL_SUCCESS) << last_error();
    EXPECT_EQ(aclrtSynchronizeStream(b_), ACL_ERROR_RT_WAIT_TIMEOUT);
}

TEST_F(Events, BadInput)
{
    aclrtEventRecordedStatus s{};
    EXPECT_EQ(aclrtCreateEvent(nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtCreateNotify(nullptr, 0), ACL_ERROR_INVALID_PARAM);
    aclrtNotify n = nullptr;
    EXPECT_EQ(aclrtCreateNotify(&n, 1), ACL_ERROR_INVALID_PARAM);
    EXPECT_NE(last_error().find("flag 1 is reserved"), std::string::npos) << last_error();
    EXPECT_EQ(n, nullptr);
    EXPECT_EQ(aclrtRecordEvent(nullptr, a_), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtQueryEventStatus(event_, nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtSynchronizeEventWithTimeout(event_, -2), ACL_ERROR_INVALID_PARAM);
    // Made-up and other-kind handles are refused, never dereferenced.
    void *made_up = reinterpret_cast<void *>(0x4556000000009999ULL);
    EXPECT_EQ(aclrtRecordEvent(made_up, a_), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtSynchronizeEvent(made_up), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtQueryEventStatus(made_up, &s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtRecordNotify(event_, a_), ACL_ERROR_RT_PARAM_INVALID) << "an event is not a notify";
    EXPECT_EQ(aclrtStreamWaitEvent(a_, gate_), ACL_ERROR_RT_PARAM_INVALID) << "a notify is not an event";
    EXPECT_EQ(aclrtRecordEvent(event_, made_up), ACL_ERROR_RT_PARAM_INVALID) << "not a stream";
    EXPECT_EQ(aclrtWaitAndResetNotify(gate_, made_up, 0), ACL_ERROR_RT_PARAM_INVALID);
    // Destroyed handles stay refused.
    aclrtEvent gone = nullptr;
    ASSERT_EQ(aclrtCreateEvent(&gone), ACL_SUCCESS);
    ASSERT_EQ(aclrtDestroyEvent(gone), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyEvent(gone), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtRecordEvent(gone, a_), ACL_ERROR_RT_PARAM_INVALID);
    ASSERT_EQ(aclrtCreateNotify(&n, 0), ACL_SUCCESS);
    ASSERT_EQ(aclrtDestroyNotify(n), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyNotify(n), ACL_ERROR_RT_PARAM_INVALID);
}

TEST(EventsWithoutDevice, NeedACurrentDevice)
{
    // A new thread has no current device.
    std::thread([] {
        aclrtEvent event = nullptr;
        aclrtNotify notify = nullptr;
        EXPECT_EQ(aclrtCreateEvent(&event), ACL_ERROR_RT_CONTEXT_NULL);
        EXPECT_EQ(aclrtCreateNotify(&notify, 0), ACL_ERROR_RT_CONTEXT_NULL);
        EXPECT_NE(last_error().find("aclrtSetDevice"), std::string::npos);
    }).join();
}

} // namespace
