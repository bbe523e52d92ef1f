#include "wire.h"

#include <cstring>

namespace hcts::mpi::detail {
namespace {

template <class T>
void put(std::vector<char> &out, T v)
{
    const char *p = reinterpret_cast<const char *>(&v);
    out.insert(out.end(), p, p + sizeof v);
}

void put_str(std::vector<char> &out, const std::string &s)
{
    put(out, static_cast<uint32_t>(s.size()));
    out.insert(out.end(), s.begin(), s.end());
}

class Reader {
  public:
    explicit Reader(std::span<const char> b) : b_(b) {}
    template <class T>
    bool get(T &v)
    {
        if (b_.size() - pos_ < sizeof v)
            return false;
        std::memcpy(&v, b_.data() + pos_, sizeof v);
        pos_ += sizeof v;
        return true;
    }
    bool get_str(std::string &s)
    {
        uint32_t n = 0;
        if (!get(n) || b_.size() - pos_ < n)
            return false;
        s.assign(b_.data() + pos_, n);
        pos_ += n;
        return true;
    }
    bool at_end() const { return pos_ == b_.size(); }

  private:
    std::span<const char> b_;
    size_t pos_ = 0;
};

} // namespace

std::vector<char> encode(const Report &r)
{
    std::vector<char> out;
    put(out, r.index);
    put_str(out, r.name);
    put(out, static_cast<uint8_t>(r.verdict));
    put(out, r.elapsed_ms);
    put(out, static_cast<uint32_t>(r.messages.size()));
    for (const auto &m : r.messages)
        put_str(out, m);
    put_str(out, r.payload);
    return out;
}

std::optional<Report> decode(std::span<const char> bytes)
{
    Reader rd(bytes);
    Report r;
    uint8_t verdict = 0;
    uint32_t count = 0;
    if (!rd.get(r.index) || !rd.get_str(r.name) || !rd.get(verdict) || !rd.get(r.elapsed_ms) || !rd.get(count) ||
        verdict > static_cast<uint8_t>(kAllVerdicts.back())) {
        return std::nullopt;
    }
    r.verdict = static_cast<Verdict>(verdict);
    for (uint32_t i = 0; i < count; ++i) {
        std::string m;
        if (!rd.get_str(m))
            return std::nullopt;
        r.messages.push_back(std::move(m));
    }
    if (!rd.get_str(r.payload) || !rd.at_end())
        return std::nullopt;
    return r;
}

} // namespace hcts::mpi::detail
