// The reference's settings: every environment variable libhcomm.so reads, declared once
// (name, type, default, allowed values, one line of doc). README.md "Environment" says more.
// Constant data: `hcts env` links this file alone and lists it without loading the library.
#include "settings.h"

#include "hccl/hccl_types.h"
#include "hcts/core/products.h"

namespace hcomm_ref::settings {

using hcts::settings::Table;
using hcts::settings::Type;

static_assert(HCCL_COMM_DEFAULT_BUFFSIZE == 200, "HCCL_BUFFSIZE's default below is the header's");

namespace {
std::string product_names()
{
    std::string out;
    for (const auto &p : hcts::products::Table::builtin().all())
        out += (out.empty() ? "" : "|") + p.name;
    return out;
}
std::string default_product() { return std::string(hcts::products::Table::builtin().default_product().name); }
} // namespace

// clang-format off
constinit const Setting product{"HCOMM_REF_PRODUCT", Type::enumeration, "",
    "the product profile: which calls are supported and from which side (spec/products.yaml; read once)",
    "", 0, UINT64_MAX, default_product, product_names};
constinit const Setting log{"HCOMM_REF_LOG", Type::enumeration, "warn",
    "the log level: stderr, one line each, [hcomm_ref rank N] prefix", "error|warn|info|debug"};
constinit const Setting timeout_unit{"HCOMM_REF_TIMEOUT_UNIT", Type::enumeration, "s",
    "the unit of every timeOut argument and of the default wait timeout (read once)", "s|ms"};
constinit const Setting hccl_buffsize{"HCCL_BUFFSIZE", Type::uint, "200",
    "communication memory in MB, returned size 2x (read at every comm creation; bad: HcclCommInitRootInfo "
    "returns HCCL_E_PARA)", "", 1, 1U << 20};
constinit const Setting bootstrap_if{"HCOMM_REF_BOOTSTRAP_IF", Type::string, "",
    "interface name or IPv4 address the bootstrap listens on (unset: loopback)", "an interface name or IPv4 address"};
constinit const Setting bootstrap_timeout_s{"HCOMM_REF_BOOTSTRAP_TIMEOUT_S", Type::uint, "120",
    "seconds the bootstrap and channel handshakes wait for peers", "", 1, 86399};
constinit const Setting max_write{"HCOMM_REF_MAX_WRITE", Type::size, "",
    "cap in bytes on one RDMA WRITE below the device's max_msg_sz, to reach the segment boundary in tests "
    "(unset: none)", "", 1, UINT64_MAX};
constinit const Setting notify{"HCOMM_REF_NOTIFY", Type::enumeration, "binary",
    "whether repeated notify records coalesce (binary) or each satisfy one wait (counting, WWN.PRF.1; read once)",
    "binary|counting"};
constinit const Setting ib_dev{"HCOMM_REF_IB_DEV", Type::string, "",
    "the verbs device to use (unset: the first one)", "a verbs device name"};
constinit const Setting doorbell_completion{"HCOMM_REF_DOORBELL_COMPLETION", Type::boolean, "0",
    "1: a write's task ends once its WRs are posted, not when they complete (legal variant; read once)"};
constinit const Setting poll_us{"HCOMM_REF_POLL_US", Type::uint, "200",
    "microseconds a channel wait polls its CQ before it sleeps, and an idle worker lingers (bad: 0; read once)",
    "", 0, 10000};
constinit const Setting notify_delay_ms{"HCOMM_REF_NOTIFY_DELAY_MS", Type::uint, "0",
    "a write with notify sends its notify alone this many ms after its payload (legal variant; read once)", "", 0,
    10000};
constinit const Setting split_reordered{"HCOMM_REF_SPLIT_REORDERED", Type::uint, "0",
    "K >= 2: a write with notify sends its payload as K pieces, last first, then the notify (legal variant; "
    "read once)", "", 0, 64};
constinit const Setting batch_reads{"HCOMM_REF_BATCH_READS", Type::enumeration, "ordered",
    "fenced: a batch's later WRITEs may pass its READs, fenced before the next notify or read (legal variant; "
    "read once)", "ordered|fenced"};
constinit const Setting reduce_order{"HCOMM_REF_REDUCE_ORDER", Type::enumeration, "forward",
    "the order in which reductions combine their elements (reverse: a legal variant; read once)", "forward|reverse"};
constinit const Setting local_unregistered{"HCOMM_REF_LOCAL_UNREGISTERED", Type::enumeration, "refuse",
    "a transfer's local side outside registered memory: HCCL_E_PARA (refuse) or accepted with a warning (warn; "
    "read once)", "refuse|warn"};
constinit const Setting wait_report{"HCOMM_REF_WAIT_REPORT", Type::path, "",
    "a directory where the process keeps waits.<pid>, its blocked waits, for hcts-waits (unset: none; read once)",
    "a directory"};
constinit const Setting wwn_refusal{"HCOMM_REF_WWN_REFUSAL", Type::enumeration, "not_support",
    "the code of a write with notify refused for want of a stream: HCCL_E_NOT_SUPPORT or HCCL_E_PTR (read once)",
    "not_support|ptr"};
// clang-format on

const Table &table()
{
    static const Setting *const all[] = {
        &product,         &log,         &timeout_unit, &hccl_buffsize,       &bootstrap_if, &bootstrap_timeout_s,
        &max_write,       &notify,      &ib_dev,       &doorbell_completion, &poll_us,      &notify_delay_ms,
        &split_reordered, &batch_reads, &reduce_order, &local_unregistered,  &wait_report,  &wwn_refusal};
    static const Table t{"reference_impl", "libhcomm.so, the reference hcomm", all};
    return t;
}

} // namespace hcomm_ref::settings
