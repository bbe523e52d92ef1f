#include "hcts/core/sha256.h"

#include <openssl/evp.h>

#include <array>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace hcts {

namespace {

class Digest {
  public:
    Digest() : ctx_(EVP_MD_CTX_new(), &EVP_MD_CTX_free)
    {
        if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1)
            throw std::runtime_error("sha256: libcrypto failed to start a digest");
    }
    void add(const char *data, size_t len)
    {
        if (EVP_DigestUpdate(ctx_.get(), data, len) != 1)
            throw std::runtime_error("sha256: libcrypto failed to digest " + std::to_string(len) + " bytes");
    }
    std::string hex()
    {
        unsigned char digest[EVP_MAX_MD_SIZE];
        unsigned int len = 0;
        if (EVP_DigestFinal_ex(ctx_.get(), digest, &len) != 1)
            throw std::runtime_error("sha256: libcrypto failed to finish a digest");
        static constexpr char kHex[] = "0123456789abcdef";
        std::string out;
        for (unsigned int i = 0; i < len; ++i) {
            out += kHex[digest[i] >> 4];
            out += kHex[digest[i] & 15];
        }
        return out;
    }

  private:
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx_;
};

} // namespace

std::string sha256_hex(std::string_view data)
{
    Digest d;
    d.add(data.data(), data.size());
    return d.hex();
}

std::string sha256_of_file(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return {};
    Digest d;
    std::array<char, 65536> buf{};
    while (in) {
        in.read(buf.data(), buf.size());
        d.add(buf.data(), static_cast<size_t>(in.gcount()));
    }
    return d.hex();
}

} // namespace hcts
