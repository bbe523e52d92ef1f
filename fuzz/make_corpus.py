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


def control_plane_seeds():
    rng = random.Random(13)  # issue 13
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
    # Findings, kept (issue 13): HcclChannelDestroy with channelNum UINT32_MAX over 300
    # distinct handles, and HcclThreadExportToCommEngine with UINT32_MAX over one thread
    # repeated, read on past the array (see reference_bad_input's rows).
    seeds["finding_channel_destroy_huge_count"] = bytes([0, 9, 2, 2, 1, 1]) + struct.pack("<Q", 0x4348000000000100) + b"\x01"
    seeds["finding_thread_export_huge_count"] = bytes([0]) + acquire(1) + bytes([5, 2, 2, 2, 3, 2])
    # Longer programs, and the fuzzed comm init (first byte odd).
    for i in range(6):
        seeds[f"program{i}"] = bytes([rng.randrange(256) | (i & 1)]) + rng.randbytes(256)
    return seeds


def main():
    for target, seeds in (("wire", wire_seeds()), ("control_plane", control_plane_seeds())):
        out = HERE / "corpus" / target
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        for name, data in sorted(seeds.items()):
            (out / name).write_bytes(data)
        print(f"{out}: {len(seeds)} files")


if __name__ == "__main__":
    main()
