// Whole-file writes a reader never sees half done: results.json, reports and the
// self-test's summary are read by CI while a run may still be writing, or after one
// was killed mid-write.
#pragma once

#include <filesystem>
#include <string_view>

namespace hcts::files {

// Writes `data` to a temporary file beside `path` (unique to this process), then
// renames it over `path`: a reader sees the old file or the new one, never part of
// either. Creates missing parent directories. Throws std::runtime_error naming the
// path and the cause (cannot open, write failed - disk full? -, cannot rename); the
// temporary is removed then, and `path` is left as it was.
void write_atomic(const std::filesystem::path &path, std::string_view data);

} // namespace hcts::files
