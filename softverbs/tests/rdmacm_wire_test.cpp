// softverbs' rdma_cm message codec against hostile bytes: every length and field
// is checked before use, a short buffer asks for more, a round trip is exact.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "wire.h"

using namespace svcm;

namespace {

std::vector<uint8_t> encoded(const Msg &m)
{
    std::vector<uint8_t> b(kMaxMsgLen);
    b.resize(encode_msg(m, b.data()));
    return b;
}

Msg sample_req()
{
    Msg m{};
    m.type = MsgType::Req;
    for (int i = 0; i < 16; i++)
        m.gid[i] = static_cast<uint8_t>(i + 1);
    m.qpn = 0x123456;
    m.psn = 0xabcdef;
    m.responder_resources = 4;
    m.initiator_depth = 2;
    m.retry_count = 7;
    m.rnr_retry_count = 6;
    m.private_data_len = 5;
    std::memcpy(m.private_data, "hello", 5);
    return m;
}

Parse parse(const std::vector<uint8_t> &b, Msg *m, const char **why)
{
    size_t used = 0;
    return parse_msg(b.data(), b.size(), m, &used, why);
}

} // namespace

TEST(RdmacmWire, RoundTripAndPartialInput)
{
    auto b = encoded(sample_req());
    ASSERT_EQ(b.size(), kHeaderLen + kConnBodyLen + 5);
    Msg m{};
    const char *why = nullptr;
    size_t used = 0;
    for (size_t n = 0; n < b.size(); n++) // every prefix: wait for more, never decide
        EXPECT_EQ(parse_msg(b.data(), n, &m, &used, &why), Parse::NeedMore) << n;
    ASSERT_EQ(parse_msg(b.data(), b.size(), &m, &used, &why), Parse::Ok);
    EXPECT_EQ(used, b.size());
    Msg want = sample_req();
    EXPECT_EQ(m.type, MsgType::Req);
    EXPECT_EQ(0, std::memcmp(m.gid, want.gid, 16));
    EXPECT_EQ(m.qpn, want.qpn);
    EXPECT_EQ(m.psn, want.psn);
    EXPECT_EQ(m.responder_resources, 4);
    EXPECT_EQ(m.initiator_depth, 2);
    EXPECT_EQ(m.retry_count, 7);
    EXPECT_EQ(m.rnr_retry_count, 6);
    ASSERT_EQ(m.private_data_len, 5);
    EXPECT_EQ(0, std::memcmp(m.private_data, "hello", 5));
}

TEST(RdmacmWire, HostileHeadersAreRefused)
{
    Msg m{};
    const char *why = nullptr;
    auto base = encoded(sample_req());
    auto bad = base;
    bad[0] ^= 1;
    EXPECT_EQ(parse(bad, &m, &why), Parse::Bad) << "magic";
    bad = base;
    bad[4] = 2;
    EXPECT_EQ(parse(bad, &m, &why), Parse::Bad) << "version";
    bad = base;
    bad[6] = 1;
    EXPECT_EQ(parse(bad, &m, &why), Parse::Bad) << "reserved";
    for (uint8_t t : {0, 6, 255}) {
        bad = base;
        bad[5] = t;
        EXPECT_EQ(parse(bad, &m, &why), Parse::Bad) << "type " << int{t};
    }
    bad = base; // a body length beyond any message: refused at once, not waited for
    bad[8] = 0x7f;
    EXPECT_EQ(parse(bad, &m, &why), Parse::Bad) << "huge length";
    EXPECT_NE(why, nullptr);
}

TEST(RdmacmWire, HostileBodiesAreRefused)
{
    Msg m{};
    const char *why = nullptr;
    auto base = encoded(sample_req());
    auto bad = base;
    bad[kHeaderLen + 28] = 6; // private data length says 6, the body carries 5
    EXPECT_EQ(parse(bad, &m, &why), Parse::Bad) << "private length";
    bad = base;
    bad[kHeaderLen + 16] = 1; // QPN 0x01123456: wider than 24 bits
    EXPECT_EQ(parse(bad, &m, &why), Parse::Bad) << "qpn";
    bad = base;
    bad[kHeaderLen + 20] = 1;
    EXPECT_EQ(parse(bad, &m, &why), Parse::Bad) << "psn";
    bad = base;
    bad[kHeaderLen + 27] = 8;
    EXPECT_EQ(parse(bad, &m, &why), Parse::Bad) << "rnr retry";
    bad = base; // a REQ too short for its fixed fields
    bad[11] = 3;
    bad.resize(kHeaderLen + 3);
    EXPECT_EQ(parse(bad, &m, &why), Parse::Bad) << "short REQ";

    Msg rtu{};
    rtu.type = MsgType::Rtu;
    auto r = encoded(rtu);
    ASSERT_EQ(r.size(), kHeaderLen);
    EXPECT_EQ(parse(r, &m, &why), Parse::Ok);
    r[11] = 1;
    r.push_back(0);
    EXPECT_EQ(parse(r, &m, &why), Parse::Bad) << "RTU with a body";

    Msg rej{};
    rej.type = MsgType::Rej;
    rej.private_data_len = 3;
    std::memcpy(rej.private_data, "no!", 3);
    auto j = encoded(rej);
    ASSERT_EQ(parse(j, &m, &why), Parse::Ok);
    EXPECT_EQ(m.private_data_len, 3);
    j[kHeaderLen] = 4;
    EXPECT_EQ(parse(j, &m, &why), Parse::Bad) << "REJ private length";
}
