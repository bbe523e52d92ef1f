#include "hcts/core/files.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>

namespace hcts::files {

void write_atomic(const std::filesystem::path &path, std::string_view data)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (path.has_parent_path()) {
        fs::create_directories(path.parent_path(), ec);
        if (ec)
            throw std::runtime_error("cannot create the directory '" + path.parent_path().string() +
                                     "': " + ec.message());
    }
    fs::path tmp = path;
    tmp += ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
            throw std::runtime_error("cannot open '" + tmp.string() + "' for writing: " + std::strerror(errno));
        out.write(data.data(), static_cast<std::streamsize>(data.size()));
        out.flush();
        if (!out) {
            fs::remove(tmp, ec);
            throw std::runtime_error("writing '" + tmp.string() + "' failed (disk full?)");
        }
    }
    fs::rename(tmp, path, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        throw std::runtime_error("cannot rename '" + tmp.string() + "' to '" + path.string() + "': " + ec.message());
    }
}

} // namespace hcts::files
