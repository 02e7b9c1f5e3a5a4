// Writing an output file so that readers (a CI job, `mgbench compare`) never see a partial one.
#pragma once
#include <string>

namespace mg {

// Writes content to a temporary file in path's directory, fsyncs it, then renames it over path (atomic on
// POSIX within one file system), so an interrupted run leaves either the old file or the complete new one.
// Throws UsageError("cannot write <path>: <reason>") when the directory is missing or not writable, and Error
// when the disk is full, a quota or file-size limit is hit or the device fails; the temporary is removed.
void write_file_atomic(const std::string& path, const std::string& content);

// The error write_file_atomic throws for a failed write of path (errno err), for writers that stream a large
// output to their own temporary (record files): Error for a full disk/quota/size limit/EIO, else UsageError.
[[noreturn]] void throw_write_error(const std::string& path, const std::string& what, int err);

}  // namespace mg
