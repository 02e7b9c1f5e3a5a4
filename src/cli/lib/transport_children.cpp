#include "cli/lib/transport_children.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "core/error.h"

namespace mg {

namespace {

std::vector<std::string> own_argv() {
  std::vector<std::string> v;
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  while (std::getline(f, arg, '\0')) v.push_back(arg);
  return v;
}

}  // namespace

std::string own_command_line() {
  std::string s;
  for (const std::string& a : own_argv()) s += (s.empty() ? "" : " ") + a;
  return s;
}

ChildResults run_per_transport_children(const std::vector<std::string>& transports, bool quiet) {
  const std::vector<std::string> base = own_argv();
  std::vector<std::string> args;  // our arguments without --transport / --json (each child gets its own)
  for (size_t i = 1; i < base.size(); ++i) {
    const std::string& a = base[i];
    if (a == "--transport" || a == "--json") {
      ++i;
    } else if (a.rfind("--transport=", 0) != 0 && a.rfind("--json=", 0) != 0) {
      args.push_back(a);
    }
  }
  char dir_template[] = "/tmp/mgbench-transport-XXXXXX";
  if (!mkdtemp(dir_template)) throw Error(std::string("cannot create a temporary directory: ") + std::strerror(errno));
  const std::string dir = dir_template;
  ChildResults out;
  for (const std::string& t : transports) {
    const std::string json = dir + "/" + t + ".json";
    std::vector<std::string> child = {"/proc/self/exe"};
    child.insert(child.end(), args.begin(), args.end());
    for (const std::string& extra : {std::string("--transport"), t, std::string("--json"), json}) child.push_back(extra);
    std::vector<char*> argv;
    for (auto& c : child) argv.push_back(c.data());
    argv.push_back(nullptr);
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) throw Error(std::string("fork failed: ") + std::strerror(errno));
    if (pid == 0) {
      if (quiet) {
        const int null_fd = open("/dev/null", O_WRONLY);
        if (null_fd >= 0) dup2(null_fd, STDOUT_FILENO);
      }
      execv("/proc/self/exe", argv.data());
      std::fprintf(stderr, "mgbench: failed: cannot run %s: %s\n", argv[0], std::strerror(errno));
      _exit(1);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    if (rc != 0) {
      out.status = rc;  // later entries would most likely fail the same way
      std::remove(json.c_str());
      break;
    }
    std::ifstream in(json);
    out.parts.push_back(nlohmann::json::parse(in));
    std::remove(json.c_str());
  }
  rmdir(dir.c_str());
  return out;
}

}  // namespace mg
