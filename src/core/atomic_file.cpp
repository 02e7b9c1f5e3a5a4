#include "core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/error.h"

namespace mg {

// A full disk, a quota or a file-size limit (EFBIG: SIGXFSZ is ignored by the CLI) is the machine failing the
// run, not bad input (exit 1, not 2); either way the previous file of that name is untouched.
[[noreturn]] void throw_write_error(const std::string& path, const std::string& what, int err) {
  const std::string msg = "cannot write " + path + ": " + what + ": " + std::strerror(err);
  if (err == ENOSPC || err == EDQUOT || err == EFBIG || err == EIO)
    throw Error(msg + " (nothing written; an existing " + path + " is unchanged)");
  throw UsageError(msg);
}


void write_file_atomic(const std::string& path, const std::string& content) {
  if (path.empty()) throw UsageError("cannot write an output file with an empty name");
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.empty()) throw UsageError("cannot write " + path + ": it names a directory");

  // The temporary lives beside the target: rename() is only atomic within one file system.
  std::string tmpl = (dir == "/" ? "" : dir) + "/." + base + ".tmp.XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  if (fd < 0) throw_write_error(path, "cannot create a temporary file in " + dir, errno);
  const std::string tmp(name.data());

  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw_write_error(path, "write failed", err);
    }
    done += static_cast<size_t>(n);
  }
  // mkstemp creates 0600; results are meant to be shared like any file the user's umask allows.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    throw_write_error(path, "fsync failed", err);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw_write_error(path, "close failed", err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw_write_error(path, "rename failed", err);
  }
  // Persist the directory entry too, so a crash right after does not lose the rename.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace mg
