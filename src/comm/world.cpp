// create_communicators(): rendezvous (in-process store, or a TCP store served by process rank 0 whose address
// comes from MASTER_ADDR or an MPI broadcast), a cross-process configuration check, then the library's own
// factory: Gloo (gloo_communicator.h), NCCL when built with it, or, for replicas that are all threads of this
// process, shared memory (LocalCommunicator) unless --transport tcp asks for Gloo.
#include "comm/world.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>

#include "comm/gloo/gloo_communicator.h"
#include "comm/rendezvous/in_process_store.h"
#include "comm/local/local_communicator.h"
#include "comm/rendezvous/mpi_bootstrap.h"
#include "comm/rendezvous/net_address.h"
#include "comm/rendezvous/tcp_store.h"
#include "core/error.h"
#include "core/host_info.h"
#include "core/run_on_threads.h"
#ifdef MG_HAVE_NCCL
#include "comm/nccl/nccl_communicator.h"
#endif

namespace mg {
namespace {

// One store connection per process for its whole life: a sweep creates a world per device count, and rank 0's
// server must outlive them all. Keyed by endpoint and rank so tests can play several processes in one.
struct StoreSession {
  std::unique_ptr<TcpStoreServer> server;
  std::shared_ptr<TcpStore> client;
  std::string host;  // where the store listens: the route towards it picks our Gloo address
};

std::shared_ptr<StoreSession> store_session(const LaunchInfo& launch, const CommOptions& opt) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<StoreSession>> sessions;

  std::string host = launch.master_addr;
  int port = launch.master_port;
  const std::string key = std::string(launch.launcher_name()) + "|" + host + "|" + std::to_string(port) + "|" + std::to_string(launch.rank);
  {
    std::lock_guard<std::mutex> lk(mu);
    if (auto it = sessions.find(key); it != sessions.end()) return it->second;
  }
  // Connecting may wait for the server (another rank of this process in tests): not under the lock.

  auto s = std::make_shared<StoreSession>();
  if (host.empty()) {
    if (launch.launcher != Launcher::Mpi) throw UsageError("MASTER_ADDR is not set: it names the host of process rank 0");
    // mpirun without MASTER_ADDR: rank 0 opens the store on an address its peers can reach and MPI tells them.
    std::string endpoint;
    if (launch.rank == 0) {
      const std::string ip = !opt.gloo_iface.empty() ? interface_ipv4(opt.gloo_iface, "--gloo-iface")
                             : launch.single_host    ? "127.0.0.1"
                                                     : resolve_ipv4(hostname(), "this host's name");
      s->server = std::make_unique<TcpStoreServer>(ip, port);
      endpoint = ip + ":" + std::to_string(s->server->port());
    }
    endpoint = mpi_broadcast_from_rank0(endpoint);
    const size_t colon = endpoint.rfind(':');
    host = endpoint.substr(0, colon);
    port = std::stoi(endpoint.substr(colon + 1));
  } else if (launch.rank == 0) {
    s->server = std::make_unique<TcpStoreServer>(resolve_ipv4(host, "MASTER_ADDR"), port);
  }
  s->client = std::make_shared<TcpStore>(host, port, opt.timeout_s, launch.rank);
  s->host = host;
  std::lock_guard<std::mutex> lk(mu);
  return sessions.emplace(key, s).first->second;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

// The options two processes differ on, as "seed=42 vs seed=7" pairs: a user must see which flag to fix, not
// a hash.
std::string describe_difference(const std::string& mine, const std::string& theirs, int my_rank, int their_rank) {
  const auto a = split_lines(mine), b = split_lines(theirs);
  std::string diff;
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const std::string x = i < a.size() ? a[i] : "(none)", y = i < b.size() ? b[i] : "(none)";
    if (x == y) continue;
    diff += (diff.empty() ? "" : ", ") + x + " vs " + y;
  }
  return "processes disagree on the run (launched with different options?): process " + std::to_string(my_rank) +
         " vs process " + std::to_string(their_rank) + ": " + diff;
}

// Every process publishes what it believes the world is; any disagreement is a usage error on all of them,
// before a collective could hang or mis-sum.
void check_same_configuration(Store& store, const LaunchInfo& launch, int local, const CommOptions& opt) {
  const std::string mine = "processes=" + std::to_string(launch.world_size) + "\nreplicas-per-process=" +
                           std::to_string(local) + "\nlibrary=" + opt.library + "\n" + opt.config_fingerprint;
  const std::string prefix = opt.job_key + "/config/";
  store.set(prefix + std::to_string(launch.rank), std::vector<uint8_t>(mine.begin(), mine.end()));
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(opt.timeout_s * 1000));
  for (int p = 0; p < launch.world_size; ++p) {
    std::vector<uint8_t> v;
    try {
      v = store.get(prefix + std::to_string(p), timeout);
    } catch (const StoreUnreachable&) {
      throw;  // names the store's own process, whoever was awaited
    } catch (const Error&) {
      throw Error("rank " + std::to_string(p * local) + " lost: process " + std::to_string(p) +
                  " did not join the world within " + std::to_string(opt.timeout_s) + " s");
    }
    const std::string theirs(v.begin(), v.end());
    if (theirs != mine) throw UsageError(describe_difference(mine, theirs, launch.rank, p));
  }
}

// Where this process's Gloo ranks listen: the named interface, loopback for a one-process world, else the
// local address on the route towards the store's host (the peers reach it the same way).
GlooAddress gloo_address(const LaunchInfo& launch, const CommOptions& opt, const std::string& route_host) {
  GlooAddress a;
  if (!opt.gloo_iface.empty()) {
    a.iface = opt.gloo_iface;
  } else if (launch.world_size == 1) {
    a.hostname = "127.0.0.1";
  } else {
    a.hostname = local_ipv4_towards(route_host);
  }
  return a;
}

}  // namespace

std::vector<std::unique_ptr<Communicator>> create_communicators(const LaunchInfo& launch,
                                                                const std::vector<Backend*>& local_backends,
                                                                const CommOptions& opt) {
  if (local_backends.empty()) throw UsageError("no devices to build a world from");
  if (opt.library != "gloo" && opt.library != "nccl") {
    throw UsageError("communication library '" + opt.library + "' is not one of: gloo, nccl");
  }
  if (!(opt.timeout_s > 0)) throw UsageError("--comm-timeout must be positive");
  if (opt.transport == Transport::Local && (opt.library != "gloo" || launch.world_size > 1)) {
    throw UsageError("--transport local joins replicas that are threads of one process on --device cpu; "
                     "processes under a launcher use tcp (or auto)");
  }
#ifndef MG_HAVE_NCCL
  if (opt.library == "nccl") throw UsageError("--device cuda needs NCCL: this build has none");
#endif

  std::shared_ptr<StoreSession> session;
  InProcessStore in_process;
  Store* store = &in_process;
  std::function<std::vector<int>()> lost_processes;
  if (launch.world_size > 1) {
    session = store_session(launch, opt);
    store = session->client.get();
    std::weak_ptr<TcpStore> client = session->client;
    lost_processes = [client] {
      auto c = client.lock();
      return c ? c->lost_processes() : std::vector<int>{};
    };
  }
  const int n_local = static_cast<int>(local_backends.size());
  check_same_configuration(*store, launch, n_local, opt);

  const int world = launch.world_size * n_local, first = launch.rank * n_local;
  std::vector<std::unique_ptr<Communicator>> comms;
  if (opt.library == "nccl") {
#ifdef MG_HAVE_NCCL
    comms = create_nccl_communicators(world, first, local_backends, *store, opt.job_key, opt.timeout_s);
#endif
  } else if (launch.world_size == 1 && opt.transport != Transport::Tcp) {
    comms = create_local_communicators(local_backends, opt.timeout_s);
  } else {
    comms = create_gloo_communicators(world, first, local_backends, *store, opt.job_key, opt.timeout_s,
                                      gloo_address(launch, opt, session ? session->host : std::string("127.0.0.1")),
                                      std::move(lost_processes));
  }
  // A launcher's log then shows each process past the rendezvous (and one that never got there by its absence).
  if (launch.world_size > 1) {
    std::fprintf(stderr, "mgbench: process %d of %d joined the world (ranks %d-%d of %d, %s)\n", launch.rank,
                 launch.world_size, first, first + n_local - 1, world, opt.library.c_str());
    std::fflush(stderr);
  }
  return comms;
}

}  // namespace mg
