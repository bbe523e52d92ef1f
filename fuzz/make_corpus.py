#!/usr/bin/env python3
"""Writes the seed corpus of fuzz/ (corpus/<target>/): deterministic, so the
committed files are exactly what this script makes. Run it after changing how a
target decodes its input: python3 fuzz/make_corpus.py"""
import pathlib
import random
import shutil
import struct

HERE = pathlib.Path(__file__).resolve().parent
OPS = 20  # run_ops in control_plane.cpp: one byte picks one of 20 operations


def frame(op, flags=0, length=0, plen=None, seq=1, raddr=0x1000, rkey=0x2001, imm=0, a=0, b=0):
    """sv::Frame (softverbs/src/wire.h), little-endian, 56 bytes."""
    plen = length if plen is None else plen
    return struct.pack("<BBBBIQQIIQQII", op, flags, 0, 0, length, seq, raddr, rkey, imm, a, b, plen, 0)


def wire_seeds():
    inbound, outbound = b"\x00", b"\x01"
    write, write_imm, send, send_imm, read, cmp_swp, fetch_add = 1, 2, 3, 4, 5, 6, 7
    ack, nak, read_resp, atomic_resp = 16, 17, 18, 19
    placed, more = 1, 2
    seeds = {
        "write": inbound + frame(write, length=8) + b"A" * 8,
        "write_placed": inbound + frame(write, placed, length=4096, plen=0),
        "write_more": inbound + frame(write, more, length=4) + b"abcd" + frame(write_imm, length=4, imm=7) + b"efgh",
        "send": inbound + frame(send, length=16) + bytes(range(16)),
        "send_imm_empty": inbound + frame(send_imm, length=0, imm=0x4E000001),
        "read": inbound + frame(read, length=64, plen=0),
        "cmp_swp": inbound + frame(cmp_swp, length=8, plen=0, a=1, b=2),
        "fetch_add": inbound + frame(fetch_add, length=8, plen=0, a=5),
        "three_requests": inbound + frame(write, length=2) + b"hi" + frame(read, length=8, plen=0)
        + frame(send, length=1) + b"!",
        "ack": outbound + frame(ack),
        "nak": outbound + frame(nak),
        "read_resp": outbound + frame(read_resp, length=8) + b"12345678",
        "atomic_resp": outbound + frame(atomic_resp, plen=0, a=42),
        "replies": outbound + frame(ack, seq=1) + frame(read_resp, length=3, seq=2) + b"xyz" + frame(nak, seq=3),
        # Hostile: what the length checks exist for.
        "declared_longer": inbound + frame(write, length=1 << 20) + b"short",
        "plen_not_len": inbound + frame(write, length=8, plen=4) + b"abcd",
        "huge_len": inbound + frame(send, length=0xFFFFFFFF),
        "bad_flags": inbound + frame(write, flags=0x80, length=1) + b"x",
        "reply_as_request": inbound + frame(read_resp, length=1) + b"x",
        "request_as_reply": outbound + frame(write, length=1) + b"x",
        "truncated_header": inbound + frame(write, length=8)[:30],
        "read_with_payload": inbound + frame(read, length=8, plen=8) + b"12345678",
    }
    return {name: data for name, data in seeds.items()}


def ud_header(flags=0, length=0, src=0x12, dst=0x13, qkey=0x11111111, imm=0, magic=0x44555653, version=1, flow=0):
    """sv::UdHeader (softverbs/src/ud_wire.h), little-endian, 64 bytes."""
    sgid = bytes([0xFE, 0x80]) + bytes(6) + bytes([127, 0, 0, 1, 0x9C, 0x40, 0x12, 0x34])
    dgid = bytes([0xFE, 0x80]) + bytes(6) + bytes([127, 0, 0, 1, 0x9C, 0x41, 0x56, 0x78])
    return struct.pack("<IBBBBIIIIII", magic, version, flags, 0, 64, flow, src, dst, qkey, imm, length) + sgid + dgid


def ud_wire_seeds():
    imm, solicited = 1, 2
    return {
        "send": ud_header(length=16) + bytes(range(16)),
        "send_imm": ud_header(flags=imm | solicited, length=4, imm=0x01020304) + b"abcd",
        "empty": ud_header(),
        "mtu": ud_header(length=4096) + bytes(4096),
        # Hostile: what the checks exist for.
        "over_mtu": ud_header(length=4097) + bytes(4097),
        "declared_longer": ud_header(length=1000) + b"short",
        "declared_shorter": ud_header(length=2) + b"longer",
        "bad_magic": ud_header(magic=0, length=1) + b"x",
        "bad_version": ud_header(version=2, length=1) + b"x",
        "bad_flags": ud_header(flags=0x80, length=1) + b"x",
        "qpn_25_bits": ud_header(dst=0x1000000, length=1) + b"x",
        "flow_21_bits": ud_header(flow=0x100000),
        "truncated_header": ud_header()[:40],
    }


def cm_msg(kind, body=b"", length=None, magic=0x4D435653, version=1, reserved=0):
    """A softverbs rdma_cm message (softverbs/rdmacm/src/wire.h): big-endian header."""
    length = len(body) if length is None else length
    return struct.pack(">IBBHI", magic, version, kind, reserved, length) + body


def cm_conn(private=b"", qpn=0x12, psn=0x345678, rr=1, idepth=1, retry=7, rnr=7, pdlen=None):
    gid = bytes([0xFE, 0x80] + [0] * 6 + [127, 0, 0, 1, 0x4E, 0x20, 0x12, 0x34])
    pdlen = len(private) if pdlen is None else pdlen
    return gid + struct.pack(">IIBBBBB", qpn, psn, rr, idepth, retry, rnr, pdlen) + private


def rdmacm_wire_seeds():
    req, rep, rej, rtu, dreq = 1, 2, 3, 4, 5
    return {
        "req": cm_msg(req, cm_conn(b"hello")),
        "rep": cm_msg(rep, cm_conn(b"world", qpn=0x13)),
        "rej": cm_msg(rej, b"\x04busy"),
        "rtu": cm_msg(rtu),
        "dreq": cm_msg(dreq),
        "exchange": cm_msg(rep, cm_conn()) + cm_msg(rtu) + cm_msg(dreq),
        "req_max_private": cm_msg(req, cm_conn(bytes(range(255)))),
        # Hostile: what the checks exist for.
        "bad_magic": cm_msg(req, cm_conn(), magic=0x53564D43),
        "bad_version": cm_msg(req, cm_conn(), version=2),
        "bad_type": cm_msg(9),
        "reserved_set": cm_msg(rtu, reserved=1),
        "huge_length": cm_msg(req, cm_conn(), length=0x7FFFFFFF),
        "private_len_lies": cm_msg(req, cm_conn(b"abc", pdlen=200)),
        "qpn_too_wide": cm_msg(req, cm_conn(qpn=0x1000000)),
        "retry_too_big": cm_msg(rep, cm_conn(rnr=8)),
        "rtu_with_body": cm_msg(rtu, b"x"),
        "rej_len_lies": cm_msg(rej, b"\x09ab"),
        "truncated": cm_msg(req, cm_conn(b"hello"))[:20],
    }


def control_plane_seeds():
    rng = random.Random(13)
    seeds = {}
    # One seed per operation: a plain one-rank comm (first byte 0), the operation, and
    # argument bytes for it and what follows.
    for op in range(OPS):
        seeds[f"op{op:02d}"] = bytes([0, op]) + rng.randbytes(96)
    # Threads first (acquire is op 3), then the operation on them.
    # op 3 (thread acquire): comm byte 2 (the comm), engine byte -1 + e, count byte 3 and 0
    # (one thread), 1 (no limit edge), 1 (an output array), 0 (HcclThreadAcquire),
    # 1 and 4 (four notifies per thread).
    def acquire(engine):
        return bytes([3, 2, engine + 1, 3, 0, 1, 1, 0, 1, 4])

    for op in range(OPS):
        engine = 3 if op % 2 else 1  # AICPU_TS (device programs) or CPU_TS (host)
        seeds[f"thread_then_op{op:02d}"] = bytes([0]) + acquire(engine) + bytes([op]) + rng.randbytes(64)
    # Findings, kept: HcclChannelDestroy with channelNum UINT32_MAX over 300
    # distinct handles, and HcclThreadExportToCommEngine with UINT32_MAX over one thread
    # repeated, read on past the array (see reference_bad_input's rows).
    seeds["finding_channel_destroy_huge_count"] = bytes([0, 9, 2, 2, 1, 1]) + struct.pack("<Q", 0x4348000000000100) + b"\x01"
    seeds["finding_thread_export_huge_count"] = bytes([0]) + acquire(1) + bytes([5, 2, 2, 2, 3, 2])
    # Longer programs, and the fuzzed comm init (first byte odd).
    for i in range(6):
        seeds[f"program{i}"] = bytes([rng.randrange(256) | (i & 1)]) + rng.randbytes(256)
    return seeds


def bootstrap_seeds():
    """fuzz/bootstrap.cpp: byte 0 picks the side (0 the root, 1 a rank waiting for hellos),
    then the number of connections and each one (see connection_bytes)."""
    def join(n_ranks, rank, token=True, fudge=0, typ=0, shut=1, fields=b"\0" * 32):
        # fudge (0..4 = -2..2), kind 1 (join), the message's bytes, token choice, set ranks,
        # n_ranks, rank, type choice (0: natural), then the shutdown choice (root side only)
        return bytes([fudge + 2, 1]) + fields + bytes([1 if token else 0, 1, n_ranks, rank, typ, shut])

    def hello(frm, to, n_ranks, token=True, fudge=0, typ=0):
        return bytes([fudge + 2, 2]) + b"\0" * 28 + bytes([1 if token else 0, 1, frm, to, n_ranks, typ])

    def raw(data, shut=1):
        return bytes([2, 0]) + struct.pack("<H", len(data)) + data + bytes([shut])

    seeds = {
        "root_one_join": bytes([0, 0]) + join(2, 0),
        "root_two_joins_table": bytes([0, 1]) + join(2, 0) + join(2, 1),
        "root_bad_token": bytes([0, 0]) + join(2, 0, token=False),
        "root_rank_out_of_range": bytes([0, 1]) + join(2, 0) + join(2, 3),
        "root_duplicate_rank": bytes([0, 2]) + join(3, 1) + join(3, 1) + join(3, 0),
        "root_zero_ranks": bytes([0, 0]) + join(0, 0),
        "root_ranks_disagree": bytes([0, 1]) + join(2, 0) + join(3, 1),
        "root_short_join": bytes([0, 0]) + join(2, 0, fudge=-1),
        "root_long_join": bytes([0, 0]) + join(2, 0, fudge=2),
        "root_hello_type": bytes([0, 0]) + join(2, 0, typ=2) + bytes([1]),
        "root_huge_length": bytes([0, 0]) + raw(struct.pack("<II", 0x4A4F494E, 0xFFFFFFFF)),
        "root_partial_header_kept_open": bytes([0, 0]) + raw(b"\x4e\x49\x4f", shut=0),
        # Found by fuzzing: a join (with the token) claiming 2^32-1 ranks sized the root's tables.
        "finding_huge_n_ranks": bytes([0, 0, 2, 1]) + b"\0" * 16 + struct.pack("<II", 0xFFFFFFFF, 0) + b"\0" * 8 +
        bytes([1, 0, 0, 1]),
        "root_garbage": bytes([0, 3]) + raw(bytes(range(64))) + raw(b"") + raw(b"\xff" * 199) + join(1, 0),
        "rank_no_hostile_hello": bytes([1, 0]),
        "rank_bad_token_hello": bytes([1, 1]) + hello(1, 0, 2, token=False),
        "rank_wrong_direction": bytes([1, 2]) + hello(0, 0, 2) + hello(1, 1, 2),
        "rank_wrong_size": bytes([1, 2]) + hello(1, 0, 3) + hello(1, 0, 2, fudge=-2),
        "rank_valid_then_real": bytes([1, 1]) + hello(1, 0, 2),
        "rank_join_where_hello_goes": bytes([1, 1]) + bytes([2, 1]) + b"\0" * 32 + bytes([1, 1, 2, 1, 0]),
        "rank_garbage": bytes([1, 3]) + bytes([2, 0, 10, 0]) + bytes(range(10)) + bytes([2, 0, 0, 0]) + bytes([2, 0, 8, 0]) +
        struct.pack("<II", 0x48454C4F, 0x7FFFFFFF),
    }
    return seeds


def handshake_seeds():
    """fuzz/handshake.cpp: byte 0 (% 6 == 0: raw bytes instead of the Hello), the nonce,
    the Hello's change, the Answer's, then frames (see fuzzed_frame)."""
    ops = [1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19]

    def fr(op, raddr_mode=5, raddr=0, rkey_mode=5, rkey=0, length=64, payload=None, plen=None, flags=None):
        b = bytes([ops.index(op)])
        b += bytes([1]) if flags is None else bytes([8, flags])  # below(8) == 0 takes the next byte
        b += bytes([1])  # seq: the next one
        b += bytes([raddr_mode]) + {0: struct.pack("<Q", raddr), 1: struct.pack("<H", raddr), 2: struct.pack("<H", raddr),
                                    3: bytes([raddr & 0xff])}.get(raddr_mode, struct.pack("<I", raddr))
        b += bytes([rkey_mode]) + {0: struct.pack("<I", rkey), 1: bytes([rkey & 0xff])}.get(rkey_mode, b"")
        b += struct.pack("<IQQ", 0x1234, 5, 6)
        b += bytes([1]) + struct.pack("<H", length)
        carries = op in (1, 2, 3, 4, 18)
        if plen is None:
            b += bytes([1])
            n = length if carries else 0
        else:
            b += bytes([8]) + struct.pack("<H", plen)
            n = plen
        return b + (payload if payload is not None else bytes(range(256)) * (n // 256) + bytes(range(n % 256)))

    def hs(frames, hello_mode=7, hello_bytes=b"", answer_mode=7, answer_bytes=b""):
        return bytes([1]) + bytes(range(16)) + bytes([hello_mode]) + hello_bytes + bytes([answer_mode]) + answer_bytes + \
            bytes([len(frames) - 1 if frames else 0]) + b"".join(frames)

    seeds = {
        "raw_garbage": bytes([0]) + struct.pack("<H", 100) + bytes(range(100)),
        "raw_short": bytes([6, 3, 0]) + b"SVH",
        "write_in_mr": hs([fr(1, 5, 128)]),
        "write_imm_and_send": hs([fr(2, 5, 0), fr(3, 5, 0, length=200), fr(4, 5, 0, length=0)]),
        "read_in_mr": hs([fr(5, 5, 4096, length=512)]),
        "atomics": hs([fr(6, 5, 64, length=8), fr(7, 5, 72, length=8)]),
        "write_before_mr": hs([fr(1, 1, 16, length=64)]),
        "write_straddling_end": hs([fr(1, 2, 32, length=128)]),
        "write_one_byte_past_end": hs([fr(1, 2, 127, length=128)]),
        "write_to_ro_mr": hs([fr(1, 3, 0, rkey_mode=2)]),
        "write_stale_generation": hs([fr(1, 5, 0, rkey_mode=1, rkey=14)]),
        "write_plen_mismatch": hs([fr(1, 5, 0, length=64, plen=32)]),
        "huge_len": hs([fr(1, 5, 0, length=0xFFFF, plen=16)]),
        "replies_at_responder": hs([fr(16, length=0), fr(17, length=0), fr(18, length=16), fr(19, length=8)]),
        "bad_flags": hs([fr(1, 5, 0, flags=0xFF)]),
        "hello_wrong_qp": hs([], hello_mode=1, hello_bytes=struct.pack("<I", 0x999999)),
        "hello_wrong_claim": hs([fr(1)], hello_mode=3, hello_bytes=struct.pack("<HH", 1, 2)),
        "hello_rnr_255": hs([fr(3, length=8)], hello_mode=4, hello_bytes=bytes([255])),
        "hello_any": hs([], hello_mode=0, hello_bytes=bytes(104)),
        "answer_wrong_proof": hs([fr(1)], answer_mode=1, answer_bytes=bytes([0])),
        "answer_refused": hs([fr(1)], answer_mode=2),
        "answer_any": hs([fr(1)], answer_mode=0, answer_bytes=bytes(24)),
    }
    return seeds


def main():
    for target, seeds in (("wire", wire_seeds()), ("ud_wire", ud_wire_seeds()), ("control_plane", control_plane_seeds()),
                          ("rdmacm_wire", rdmacm_wire_seeds()), ("bootstrap", bootstrap_seeds()),
                          ("handshake", handshake_seeds())):
        out = HERE / "corpus" / target
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        for name, data in sorted(seeds.items()):
            (out / name).write_bytes(data)
        print(f"{out}: {len(seeds)} files")


if __name__ == "__main__":
    main()
