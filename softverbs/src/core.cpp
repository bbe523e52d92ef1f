// Process-wide state, configuration from the environment, and our identity (GID).
#include "secret_file.h"
#include "settings.h"
#include "sv.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string_view>

namespace sv {

namespace {

uint64_t parse_u64(const char *s)
{
    if (!s || !*s)
        return 0;
    char *end = nullptr;
    unsigned long long v = std::strtoull(s, &end, 0);
    if (end && *end) {
        // Non-numeric seeds are hashed so any non-empty string selects adversarial mode.
        uint64_t h = 1469598103934665603ULL;
        for (const char *p = s; *p; ++p)
            h = (h ^ static_cast<uint8_t>(*p)) * 1099511628211ULL;
        return h ? h : 1;
    }
    return v;
}

Config load_config()
{
    namespace hs = hcts::settings;
    Config c;
    c.seed = parse_u64(hs::get_string(settings::seed).value.c_str());
    // settings::transport lists the transports in this order.
    constexpr Transport kTransports[] = {Transport::Auto, Transport::Shm, Transport::Cma, Transport::Tcp,
                                         Transport::Ring};
    const auto transport = hs::get_enum(settings::transport);
    if (transport.bad())
        std::fprintf(stderr, "softverbs: %s (using auto)\n", transport.error.c_str());
    c.transport = kTransports[transport.value];
    c.listen = hs::get_string(settings::listen).value;
    if (const auto s = hs::raw(settings::secret)) {
        c.secret = *s;
        c.secret_from = settings::secret.name;
    } else {
        // No secret given: the user's own (a file only they can read, made on first use),
        // so that separately started programs of one user connect and other users' do not.
        // It is not exported: children read the same file, and the environment of a job
        // ends up in logs more often than a file under the home directory.
        SecretFile f = read_secret_file(default_secret_path());
        c.secret_file = f.path;
        if (f.status == SecretFile::kOk) {
            c.secret = std::move(f.secret);
            c.secret_from = "the per-user secret file " + f.path;
        } else {
            // A random one for this program and its children (the variable is set for
            // them), never an empty one. A file that exists but is unsafe is said at once;
            // one that cannot be made (no or read-only home) only when a connection fails.
            if (f.status == SecretFile::kRefused)
                std::fprintf(stderr,
                             "softverbs: %s; refusing it. Using a random secret for this program instead, so "
                             "separately started programs will not connect to it: fix the file or set "
                             "SOFTVERBS_SECRET\n",
                             f.why.c_str());
            uint8_t raw[16];
            std::random_device rd;
            for (uint8_t &b : raw)
                b = static_cast<uint8_t>(rd());
            static const char digits[] = "0123456789abcdef";
            for (uint8_t b : raw) {
                c.secret += digits[b >> 4];
                c.secret += digits[b & 15];
            }
            setenv(settings::secret.name, c.secret.c_str(), 0);
            c.secret_from =
                "a random secret of this program and its children (SOFTVERBS_SECRET is unset and " + f.why + ")";
        }
    }
    if (const auto f = hs::raw(settings::fail)) {
        const std::string v(*f);
        if (v.starts_with("qp:") && std::atol(v.c_str() + 3) > 0)
            c.fail_qp_at = std::atol(v.c_str() + 3);
        else if (v == "thread:progress" || v == "thread:ring" || v == "thread:adversary" || v == "thread:ud")
            c.fail_thread = v.substr(7);
        else
            std::fprintf(stderr, "softverbs: %s='%s' not understood; allowed: %s\n", settings::fail.name, v.c_str(),
                         settings::fail.allowed);
    }
    c.log = settings::log_level();
    if (c.secret.size() > kMaxSecret) {
        std::fprintf(stderr, "softverbs: SOFTVERBS_SECRET is %zu bytes; at most %zu are used\n", c.secret.size(),
                     kMaxSecret);
        c.secret.resize(kMaxSecret);
    }
    return c;
}

uint32_t resolve_listen_ip(const std::string &what)
{
    in_addr a{};
    if (inet_pton(AF_INET, what.c_str(), &a) == 1)
        return a.s_addr;
    ifaddrs *ifs = nullptr;
    uint32_t ip = 0;
    if (getifaddrs(&ifs) == 0) {
        for (ifaddrs *i = ifs; i; i = i->ifa_next)
            if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && what == i->ifa_name) {
                ip = reinterpret_cast<sockaddr_in *>(i->ifa_addr)->sin_addr.s_addr;
                break;
            }
        freeifaddrs(ifs);
    }
    if (!ip) {
        std::fprintf(
            stderr,
            "softverbs: SOFTVERBS_LISTEN='%s' is neither an IPv4 address nor an interface with one; using 127.0.0.1\n",
            what.c_str());
        ip = htonl(INADDR_LOOPBACK);
    }
    return ip;
}

} // namespace

const Config &config()
{
    // Never destroyed, as G(): progress threads may read it while exit handlers run, and
    // some programs exit from a signal handler (qperf's server), where destructors must not run.
    static const Config &c = *new Config(load_config());
    return c;
}

void log(int level, const char *fmt, ...)
{
    if (config().log < level)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    std::fprintf(stderr, "softverbs[%d %ld.%06ld]: %s\n", getpid(), static_cast<long>(ts.tv_sec % 1000),
                 ts.tv_nsec / 1000, buf);
}

// Loads the configuration when the library is loaded, before a program can fork:
// forked workers of one program share its job secret.
__attribute__((constructor)) void load_config_early() { (void)config(); }

namespace {
// Deliberately never destroyed: the progress and adversary threads may still run
// while static destructors execute at exit. A forked child gets its own (fork.cpp).
std::atomic<Global *> g_global{new Global};
} // namespace

Global &G() { return *g_global.load(std::memory_order_relaxed); }

void global_after_fork_in_child()
{
    Global *parent = g_global.load();
    auto *own = new Global;
    own->inherited = parent; // the parent's objects: kept (reachable), never touched again
    g_global.store(own);
}

uint32_t listen_ip()
{
    static const uint32_t ip = resolve_listen_ip(config().listen);
    return ip;
}

void make_gid(ibv_gid *gid)
{
    const Identity &id = identity();
    std::memset(gid, 0, sizeof *gid);
    gid->raw[0] = 0xfe;
    gid->raw[1] = 0x80;
    std::memcpy(gid->raw + 8, &id.ip, 4);
    gid->raw[12] = static_cast<uint8_t>(id.port >> 8);
    gid->raw[13] = static_cast<uint8_t>(id.port);
    gid->raw[14] = static_cast<uint8_t>(id.salt >> 8);
    gid->raw[15] = static_cast<uint8_t>(id.salt);
}

bool decode_gid(const ibv_gid &gid, uint32_t *ip, uint16_t *port, uint16_t *salt)
{
    if (gid.raw[0] != 0xfe || gid.raw[1] != 0x80)
        return false;
    std::memcpy(ip, gid.raw + 8, 4);
    *port = static_cast<uint16_t>(gid.raw[12] << 8 | gid.raw[13]);
    *salt = static_cast<uint16_t>(gid.raw[14] << 8 | gid.raw[15]);
    return *port != 0;
}

} // namespace sv
