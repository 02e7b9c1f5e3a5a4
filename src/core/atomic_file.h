// Writing an output file so that readers (a CI job, `mgbench compare`) never see a partial one.
#pragma once
#include <string>

namespace mg {

// Writes content to a temporary file in path's directory, fsyncs it, then renames it over path (atomic on
// POSIX within one file system), so an interrupted run leaves either the old file or the complete new one.
// Throws UsageError("cannot write <path>: <reason>") when the directory is missing or not writable.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace mg
