#include "comm/rendezvous/child_runs.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "core/error.h"
#include "core/stop.h"
#include "result/result_json.h"

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

void refuse_children_under_launcher(const LaunchInfo& launch, const std::string& what) {
  if (launch.launched())
    throw UsageError(what + " needs a fresh process per entry, which " + std::string(launch.launcher_name()) +
                     " cannot start: under a launcher, launch once per entry");
}

std::string own_command_line() {
  std::string s;
  for (const std::string& a : own_argv()) s += (s.empty() ? "" : " ") + a;
  return s;
}

ChildResults run_children(const std::vector<std::vector<std::string>>& extra_args,
                          const std::vector<std::string>& replaced, bool quiet,
                          const std::function<void(size_t, const nlohmann::json&)>& child_done) {
  const std::vector<std::string> base = own_argv();
  std::vector<std::string> drop = replaced;
  drop.push_back("--json");
  const auto dropped = [&](const std::string& a) {
    return std::any_of(drop.begin(), drop.end(), [&](const std::string& d) { return a.rfind(d + "=", 0) == 0; });
  };
  std::vector<std::string> args;  // our arguments without the replaced options (each child gets its own)
  for (size_t i = 1; i < base.size(); ++i) {
    const std::string& a = base[i];
    if (std::find(drop.begin(), drop.end(), a) != drop.end()) {
      ++i;
    } else if (!dropped(a)) {
      args.push_back(a);
    }
  }
  char dir_template[] = "/tmp/mgbench-child-XXXXXX";
  if (!mkdtemp(dir_template)) throw Error(std::string("cannot create a temporary directory: ") + std::strerror(errno));
  const std::string dir = dir_template;
  struct RemoveDir {  // also when a stop or a bad child result ends this early
    const std::string& dir;
    std::string json;
    ~RemoveDir() {
      if (!json.empty()) std::remove(json.c_str());
      rmdir(dir.c_str());
    }
  } cleanup{dir, {}};
  // A stop request is passed on to the running child (it was not sent the signal when only this process was
  // signalled, as `kill PID` does); the child stops on its own within its grace, so this parent waits longer.
  std::atomic<pid_t> running{0};
  ScopedStopGrace grace(stop_grace_seconds() + 2);
  StopCallback forward([&] {
    const pid_t p = running.load();
    if (p > 0) ::kill(p, stop_signal());
  });
  const pid_t parent = getpid();
  ChildResults out;
  for (size_t c = 0; c < extra_args.size(); ++c) {
    throw_if_stopped();
    const std::string json = dir + "/" + std::to_string(c) + ".json";
    cleanup.json = json;
    std::vector<std::string> child = {"/proc/self/exe"};
    child.insert(child.end(), args.begin(), args.end());
    child.insert(child.end(), extra_args[c].begin(), extra_args[c].end());
    child.push_back("--json");
    child.push_back(json);
    std::vector<char*> argv;
    for (auto& arg : child) argv.push_back(arg.data());
    argv.push_back(nullptr);
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) throw Error(std::string("fork failed: ") + std::strerror(errno));
    if (pid == 0) {
      // The child dies with this process even when it is killed outright (SIGKILL, OOM killer), so no run goes
      // on alone; the check closes the window where the parent died before prctl.
      if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(1);
      if (quiet) {
        const int null_fd = open("/dev/null", O_WRONLY);
        if (null_fd >= 0) dup2(null_fd, STDOUT_FILENO);
      }
      execv("/proc/self/exe", argv.data());
      std::fprintf(stderr, "mgbench: failed: cannot run %s: %s\n", argv[0], std::strerror(errno));
      _exit(1);
    }
    running.store(pid);
    if (stop_requested()) ::kill(pid, stop_signal());  // the stop came between the fork and the store
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    running.store(0);
    throw_if_stopped();
    const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    if (rc != 0) {
      out.status = rc;  // later entries would most likely fail the same way
      break;
    }
    out.parts.push_back(read_json_file(json));
    std::remove(json.c_str());
    if (child_done) child_done(c, out.parts.back());
  }
  return out;
}

}  // namespace mg
