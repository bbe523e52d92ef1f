#include "model/op.h"

#include <sstream>

namespace hcts::prop {

const char *kind_name(OpKind k)
{
    switch (k) {
    case OpKind::Wwn: return "WWN";
    case OpKind::Write: return "Write";
    case OpKind::Read: return "Read";
    case OpKind::Record: return "Record";
    case OpKind::Wait: return "Wait";
    case OpKind::PostWait: return "PostWait";
    case OpKind::Join: return "Join";
    case OpKind::LocalCopy: return "LocalCopy";
    case OpKind::Fence: return "Fence";
    case OpKind::Stamp: return "Stamp";
    case OpKind::Check: return "Check";
    }
    return "?";
}

static const char *addr_name(Addr a)
{
    switch (a) {
    case Addr::InWindow: return "";
    case Addr::StraddleEnd: return "@straddle-end";
    case Addr::PastEnd: return "@past-end";
    case Addr::Overflow: return "@overflow";
    case Addr::Null: return "@null";
    }
    return "@?";
}

std::string show(const Op &op)
{
    std::ostringstream os;
    os << kind_name(op.kind) << "(r" << op.rank;
    switch (op.kind) {
    case OpKind::Wwn:
    case OpKind::Write:
        os << "->r" << op.peer << ", src=" << op.src_off << addr_name(op.src_addr) << ", dst=" << op.dst_off
           << addr_name(op.dst_addr) << ", len=" << op.len;
        if (op.kind == OpKind::Wwn)
            os << ", idx=" << op.idx;
        break;
    case OpKind::Read:
        os << "<-r" << op.peer << ", src=" << op.src_off << addr_name(op.src_addr) << ", dst=" << op.dst_off
           << addr_name(op.dst_addr) << ", len=" << op.len;
        break;
    case OpKind::Record: os << "->r" << op.peer << ", idx=" << op.idx; break;
    case OpKind::Wait:
    case OpKind::PostWait: os << "<-r" << op.peer << ", idx=" << op.idx << ", timeout=" << op.timeout_ms << "ms"; break;
    case OpKind::LocalCopy:
        os << ", src=" << op.src_off << addr_name(op.src_addr) << ", dst=" << op.dst_off << addr_name(op.dst_addr)
           << ", len=" << op.len;
        break;
    case OpKind::Fence: os << "->r" << op.peer; break;
    case OpKind::Stamp: os << ", off=" << op.dst_off << ", len=" << op.len << ", id=" << op.stamp_id; break;
    case OpKind::Join:
    case OpKind::Check: break;
    }
    if (op.side == Side::Host)
        os << ", from host";
    if (op.side == Side::WrongEngine)
        os << ", non-AICPU_TS thread";
    os << ")";
    return os.str();
}

} // namespace hcts::prop
