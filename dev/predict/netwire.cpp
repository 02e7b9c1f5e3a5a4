// netwire: a delay line between two network namespaces, for kernels without sch_netem (this VM's has none).
//
//   netwire --ns NS0 --dev D0 --ns NS1 --dev D1 --delay-ms 2 [--mtu 9000] [--queue-mb 64]
//
// Opens one TAP device inside each namespace (setns into /run/netns/NS, then /dev/net/tun: the device is born
// in that namespace and nothing has to be moved), prints "ready" once both exist, and forwards every Ethernet
// frame read from one device to the other exactly --delay-ms after it was read: a FIFO per direction, so order
// is kept and the delay is the same for every frame. Rate limiting is not done here: the validation script
// shapes each TAP's egress with tc tbf in its namespace, so the kernel's token bucket (and TCP's backpressure
// against the qdisc) are the same as on the veth the no-delay runs used; the wire only adds propagation delay
// after serialisation, as a long cable does. A frame is dropped only when its direction already holds
// --queue-mb of frames (counted). SIGTERM/SIGINT: stops, prints one line of counters per direction (frames,
// bytes, drops, mean and max lateness of delivery after the due time) to stderr, exits 0. The TAP devices
// disappear with the process.
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

volatile sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "netwire: %s\n", what.c_str());
  std::exit(1);
}

// A TAP device named `dev` created in network namespace `ns` (non-blocking fd); the calling thread returns to
// its own namespace afterwards.
int open_tap(const std::string& ns, const std::string& dev) {
  const int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  const int target = open(("/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
  if (self < 0 || target < 0) die("cannot open namespace " + ns + ": " + std::strerror(errno));
  if (setns(target, CLONE_NEWNET) != 0) die("setns " + ns + ": " + std::strerror(errno));
  const int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) die(std::string("/dev/net/tun: ") + std::strerror(errno));
  ifreq ifr{};
  ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
  if (dev.size() >= IFNAMSIZ) die("device name too long: " + dev);
  std::strncpy(ifr.ifr_name, dev.c_str(), IFNAMSIZ - 1);
  if (ioctl(fd, TUNSETIFF, &ifr) != 0) die("TUNSETIFF " + dev + " in " + ns + ": " + std::strerror(errno));
  if (setns(self, CLONE_NEWNET) != 0) die(std::string("setns back: ") + std::strerror(errno));
  close(self);
  close(target);
  return fd;
}

struct Frame {
  Clock::time_point due;
  std::vector<unsigned char> bytes;
};

// One direction of the wire: frames read from `in`, written to `out` at their due time.
struct Direction {
  int in = -1, out = -1;
  std::string name;
  std::deque<Frame> queue;
  size_t queued_bytes = 0;
  unsigned long long frames = 0, bytes = 0, drops = 0, write_errors = 0;
  int first_write_errno = 0;
  double late_sum_s = 0, late_max_s = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> ns, dev;
  double delay_ms = -1, queue_mb = 64;
  int mtu = 65535;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) die("missing value for " + a);
    const std::string v = argv[++i];
    char* end = nullptr;
    if (a == "--ns") {
      ns.push_back(v);
    } else if (a == "--dev") {
      dev.push_back(v);
    } else if (a == "--delay-ms") {
      delay_ms = std::strtod(v.c_str(), &end);
      if (*end || !(delay_ms >= 0 && delay_ms <= 10000)) die("--delay-ms wants 0..10000, got " + v);
    } else if (a == "--queue-mb") {
      queue_mb = std::strtod(v.c_str(), &end);
      if (*end || !(queue_mb > 0)) die("--queue-mb wants a positive number, got " + v);
    } else if (a == "--mtu") {
      mtu = static_cast<int>(std::strtol(v.c_str(), &end, 10));
      if (*end || mtu < 576 || mtu > 65535) die("--mtu wants 576..65535, got " + v);
    } else {
      die("unknown option " + a);
    }
  }
  if (ns.size() != 2 || dev.size() != 2 || delay_ms < 0)
    die("usage: netwire --ns NS0 --dev D0 --ns NS1 --dev D1 --delay-ms MS [--queue-mb MB] [--mtu N]");

  Direction d[2];
  const int fd0 = open_tap(ns[0], dev[0]), fd1 = open_tap(ns[1], dev[1]);
  d[0].in = fd0, d[0].out = fd1, d[0].name = dev[0] + "->" + dev[1];
  d[1].in = fd1, d[1].out = fd0, d[1].name = dev[1] + "->" + dev[0];
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  std::printf("ready\n");
  std::fflush(stdout);

  const auto delay = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(delay_ms));
  const size_t cap = static_cast<size_t>(queue_mb * 1048576.0);
  std::vector<unsigned char> buf(static_cast<size_t>(mtu) + 64);
  while (!g_stop) {
    // Sleep until a device has a frame or the earliest queued frame is due.
    Clock::time_point next = Clock::time_point::max();
    for (const Direction& x : d)
      if (!x.queue.empty() && x.queue.front().due < next) next = x.queue.front().due;
    timespec ts{1, 0}, *timeout = &ts;
    if (next != Clock::time_point::max()) {
      const auto ns_left = std::chrono::duration_cast<std::chrono::nanoseconds>(next - Clock::now()).count();
      const long long n = ns_left > 0 ? ns_left : 0;
      ts.tv_sec = static_cast<time_t>(n / 1000000000LL);
      ts.tv_nsec = static_cast<long>(n % 1000000000LL);
    }
    pollfd p[2] = {{d[0].in, POLLIN, 0}, {d[1].in, POLLIN, 0}};
    if (ppoll(p, 2, timeout, nullptr) < 0 && errno != EINTR) die(std::string("ppoll: ") + std::strerror(errno));
    for (int k = 0; k < 2; ++k) {
      if (!(p[k].revents & POLLIN)) continue;
      Direction& x = d[k];
      for (;;) {  // everything the device holds now, stamped on arrival
        const ssize_t n = read(x.in, buf.data(), buf.size());
        if (n < 0) {
          if (errno == EAGAIN || errno == EINTR) break;
          die("read " + x.name + ": " + std::strerror(errno));
        }
        if (n == 0) break;
        if (x.queued_bytes + static_cast<size_t>(n) > cap) {
          ++x.drops;
          continue;
        }
        x.queue.push_back({Clock::now() + delay, std::vector<unsigned char>(buf.begin(), buf.begin() + n)});
        x.queued_bytes += static_cast<size_t>(n);
      }
    }
    const Clock::time_point now = Clock::now();
    for (Direction& x : d) {
      while (!x.queue.empty() && x.queue.front().due <= now) {
        Frame& f = x.queue.front();
        const double late = std::chrono::duration<double>(now - f.due).count();
        x.late_sum_s += late;
        if (late > x.late_max_s) x.late_max_s = late;
        // A TAP write hands the frame to the other namespace's stack as received; it does not block.
        if (write(x.out, f.bytes.data(), f.bytes.size()) < 0) {
          // EIO: the receiving TAP is still down (the first frames, before the script raised both ends)
          if (x.write_errors++ == 0) x.first_write_errno = errno;
        }
        ++x.frames;
        x.bytes += f.bytes.size();
        x.queued_bytes -= f.bytes.size();
        x.queue.pop_front();
      }
    }
  }
  for (const Direction& x : d)
    std::fprintf(stderr,
                 "netwire %s: delay %.3f ms, %llu frames, %llu bytes, %llu dropped (queue full), %llu write errors (first: %s), "
                 "lateness mean %.1f us max %.1f us\n",
                 x.name.c_str(), delay_ms, x.frames, x.bytes, x.drops, x.write_errors,
                 x.write_errors ? std::strerror(x.first_write_errno) : "none",
                 x.frames ? 1e6 * x.late_sum_s / static_cast<double>(x.frames) : 0.0, 1e6 * x.late_max_s);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);  // the wire shares the cores with the ranks: say what it took
  std::fprintf(stderr, "netwire cpu: %.2f s user, %.2f s system\n",
               static_cast<double>(ru.ru_utime.tv_sec) + 1e-6 * static_cast<double>(ru.ru_utime.tv_usec),
               static_cast<double>(ru.ru_stime.tv_sec) + 1e-6 * static_cast<double>(ru.ru_stime.tv_usec));
  return 0;
}
