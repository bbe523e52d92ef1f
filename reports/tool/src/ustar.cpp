#include "ustar.h"

#include <archive.h>
#include <archive_entry.h>

#include <memory>
#include <set>
#include <stdexcept>

namespace hcts::report {
namespace {

constexpr std::size_t kBlock = 512;
// The ustar mtime field holds 11 octal digits.
constexpr long long kMaxMtime = 077777777777LL;

using WriteArchive = std::unique_ptr<archive, decltype(&archive_write_free)>;
using ReadArchive = std::unique_ptr<archive, decltype(&archive_read_free)>;
using Entry = std::unique_ptr<archive_entry, decltype(&archive_entry_free)>;

std::string error_of(archive *a)
{
    const char *text = archive_error_string(a);
    return text ? text : "libarchive gave no reason";
}

// Writes go straight into the caller's string; an exception must not cross libarchive's C frames.
la_ssize_t append(archive *, void *out, const void *buffer, size_t length)
{
    try {
        static_cast<std::string *>(out)->append(static_cast<const char *>(buffer), length);
        return static_cast<la_ssize_t>(length);
    } catch (...) {
        return -1;
    }
}

std::size_t padded(std::size_t n) { return (n + kBlock - 1) / kBlock * kBlock; }

// Where byte `at` of a canonical archive of `members` lies, for a message a person can act on.
std::string place_of(const std::vector<TarMember> &members, std::size_t at)
{
    std::size_t start = 0;
    for (const auto &m : members) {
        if (at < start + kBlock)
            return "in the header of member '" + m.name + "'";
        if (at < start + kBlock + m.data.size())
            return "in the data of member '" + m.name + "'";
        if (at < start + kBlock + padded(m.data.size()))
            return "in the padding after member '" + m.name + "'";
        start += kBlock + padded(m.data.size());
    }
    return at < start + 2 * kBlock ? "in the end-of-archive marker" : "after the end-of-archive marker";
}

} // namespace

std::string write_tar(const std::vector<TarMember> &members, long long mtime)
{
    if (mtime < 0 || mtime > kMaxMtime)
        throw std::runtime_error("tar: mtime " + std::to_string(mtime) + " does not fit a ustar header; allowed: 0.." +
                                 std::to_string(kMaxMtime) + " seconds since 1970");
    std::set<std::string_view> names;
    for (const auto &m : members) {
        if (m.name.empty())
            throw std::runtime_error("tar: a member has an empty name; allowed: 1 or more bytes");
        if (!names.insert(m.name).second)
            throw std::runtime_error("tar: member '" + m.name + "' given twice");
    }
    std::string out;
    const WriteArchive a(archive_write_new(), &archive_write_free);
    if (!a)
        throw std::runtime_error("tar: libarchive could not allocate a writer");
    auto check = [&](int status, const std::string &what) {
        if (status != ARCHIVE_OK)
            throw std::runtime_error("tar: " + what + ": " + error_of(a.get()));
    };
    check(archive_write_set_format_ustar(a.get()), "selecting the ustar format");
    check(archive_write_add_filter_none(a.get()), "selecting no compression");
    // Exactly the two end blocks after the last member, no padding to a 10 KiB record:
    // the archive is the same size however it is written.
    check(archive_write_set_bytes_per_block(a.get(), static_cast<int>(kBlock)), "setting the block size");
    check(archive_write_set_bytes_in_last_block(a.get(), 1), "setting the last block size");
    check(archive_write_open2(a.get(), &out, nullptr, &append, nullptr, nullptr), "opening the archive");
    for (const auto &m : members) {
        const Entry e(archive_entry_new(), &archive_entry_free);
        if (!e)
            throw std::runtime_error("tar: libarchive could not allocate an entry");
        archive_entry_copy_pathname(e.get(), m.name.c_str());
        archive_entry_set_filetype(e.get(), AE_IFREG);
        archive_entry_set_perm(e.get(), 0644);
        archive_entry_set_uid(e.get(), 0);
        archive_entry_set_gid(e.get(), 0);
        archive_entry_set_mtime(e.get(), static_cast<time_t>(mtime), 0);
        archive_entry_set_size(e.get(), static_cast<la_int64_t>(m.data.size()));
        if (archive_write_header(a.get(), e.get()) != ARCHIVE_OK)
            throw std::runtime_error(
                "tar: member '" + m.name + "': " + error_of(a.get()) +
                "; allowed: names ustar holds (up to 100 bytes, or a '/' splitting it into at most 155 + 100)");
        if (archive_write_data(a.get(), m.data.data(), m.data.size()) != static_cast<la_ssize_t>(m.data.size()))
            throw std::runtime_error("tar: member '" + m.name + "': writing its data: " + error_of(a.get()));
    }
    check(archive_write_close(a.get()), "closing the archive");
    return out;
}

std::vector<TarMember> read_tar(std::string_view bytes)
{
    auto fail = [](long long offset, const std::string &problem) {
        throw std::runtime_error("tar: at byte " + std::to_string(offset) + ": " + problem);
    };
    if (bytes.empty())
        fail(0, "the archive is empty; a ustar archive has at least its two end blocks");
    const ReadArchive a(archive_read_new(), &archive_read_free);
    if (!a)
        throw std::runtime_error("tar: libarchive could not allocate a reader");
    // Only tar, and no decompression: a bundle is a plain ustar file.
    if (archive_read_support_format_tar(a.get()) != ARCHIVE_OK ||
        archive_read_open_memory(a.get(), bytes.data(), bytes.size()) != ARCHIVE_OK)
        fail(0, "libarchive cannot open it: " + error_of(a.get()));

    std::vector<TarMember> members;
    std::set<std::string> names;
    long long mtime = 0;
    archive_entry *e = nullptr; // owned by the reader
    while (true) {
        const int status = archive_read_next_header(a.get(), &e);
        if (status == ARCHIVE_EOF)
            break;
        const long long at = archive_read_header_position(a.get());
        // A damaged first header already fails here as "Unrecognized archive format".
        if (status != ARCHIVE_OK)
            fail(at, error_of(a.get()));
        const char *path = archive_entry_pathname(e);
        const std::string name = path ? path : "";
        if (archive_entry_filetype(e) != AE_IFREG)
            fail(at, "member '" + name + "' is not a regular file; allowed: regular files only");
        if (!archive_entry_size_is_set(e) || archive_entry_size(e) < 0)
            fail(at, "member '" + name + "' has no size");
        if (!names.insert(name).second)
            fail(at, "member '" + name + "' appears twice");
        if (members.empty())
            mtime = archive_entry_mtime(e);
        TarMember m{name, std::string(static_cast<std::size_t>(archive_entry_size(e)), '\0')};
        std::size_t got = 0;
        while (got < m.data.size()) {
            const auto n = archive_read_data(a.get(), m.data.data() + got, m.data.size() - got);
            if (n <= 0)
                fail(at, "member '" + name + "' is truncated: " + (n < 0 ? error_of(a.get()) : "the data ends early"));
            got += static_cast<std::size_t>(n);
        }
        members.push_back(std::move(m));
    }

    // The strictness libarchive leaves out: the bytes must be exactly those
    // write_tar() makes of these members.
    const auto canonical = write_tar(members, mtime);
    if (canonical != bytes) {
        std::size_t i = 0;
        while (i < canonical.size() && i < bytes.size() && canonical[i] == bytes[i])
            ++i;
        if (i == canonical.size())
            fail(static_cast<long long>(i), "data after the end-of-archive marker");
        if (i == bytes.size())
            fail(static_cast<long long>(i), "the archive ends early, " + place_of(members, i));
        fail(static_cast<long long>(i),
             "the archive is not in the canonical form hcts-report writes: a byte differs " + place_of(members, i));
    }
    return members;
}

} // namespace hcts::report
