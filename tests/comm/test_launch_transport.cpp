// Launch detection from crafted environments, and transport environment set/restore.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <map>
#include <optional>

#include "comm/rendezvous/slurm_hostlist.h"
#include "comm/transport.h"
#include "comm/world.h"
#include "core/error.h"
#include "core/host_info.h"

using namespace mg;

namespace {

const char* kVars[] = {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "PMI_RANK",
                       "PMI_SIZE", "MPI_LOCALRANKID", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_STEP_NUM_TASKS",
                       "SLURM_LOCALID", "SLURM_LAUNCH_NODE_IPADDR", "SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "RANK", "WORLD_SIZE", "LOCAL_RANK",
                       "MASTER_ADDR", "MASTER_PORT", "OMPI_COMM_WORLD_LOCAL_SIZE", "LOCAL_WORLD_SIZE",
                       "SLURM_NTASKS_PER_NODE"};

// Clears every launcher variable for the test and puts the process environment back afterwards.
class CleanEnv {
 public:
  CleanEnv() {
    for (const char* v : kVars) {
      const char* old = std::getenv(v);
      saved_[v] = old ? std::optional<std::string>(old) : std::nullopt;
      unsetenv(v);
    }
  }
  ~CleanEnv() {
    for (auto& [k, v] : saved_) {
      if (v) {
        setenv(k.c_str(), v->c_str(), 1);
      } else {
        unsetenv(k.c_str());
      }
    }
  }
  void set(const char* k, const char* v) { setenv(k, v, 1); }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

}  // namespace

TEST_CASE("launch: no launcher variables means one process") {
  CleanEnv env;
  const LaunchInfo li = detect_launch();
  CHECK(li.launcher == Launcher::None);
  CHECK(li.world_size == 1);
  CHECK(li.rank == 0);
}

TEST_CASE("launch: processes sharing a host split its cores instead of each taking all of them") {
  CleanEnv env;
  LaunchInfo alone = detect_launch();
  CHECK_FALSE(alone.launched());
  CHECK(alone.local_size == 1);
  CHECK(process_core_share(alone) == cpu_core_count());

  env.set("OMPI_COMM_WORLD_RANK", "0");
  env.set("OMPI_COMM_WORLD_SIZE", "8");
  env.set("OMPI_COMM_WORLD_LOCAL_SIZE", "4");
  LaunchInfo li = detect_launch();
  CHECK(li.launched());
  CHECK(li.local_size == 4);
  CHECK_FALSE(li.single_host);  // 4 of 8 here: rank 0's store must listen where the others can reach it
  CHECK(process_core_share(li) == std::max(1, cpu_core_count() / 4));
  li.local_size = 1000;  // more processes than cores: each still gets one
  CHECK(process_core_share(li) == 1);

  env.set("OMPI_COMM_WORLD_LOCAL_SIZE", "9");  // more processes on one host than in the job
  CHECK_THROWS_WITH(detect_launch(), Catch::Contains("OMPI_COMM_WORLD_LOCAL_SIZE='9'"));
}

TEST_CASE("launch: Open MPI variables") {
  CleanEnv env;
  env.set("OMPI_COMM_WORLD_RANK", "3");
  env.set("OMPI_COMM_WORLD_SIZE", "4");
  env.set("OMPI_COMM_WORLD_LOCAL_RANK", "1");
  LaunchInfo li = detect_launch();
  CHECK(li.launcher == Launcher::Mpi);
  CHECK(li.rank == 3);
  CHECK(li.world_size == 4);
  CHECK(li.local_rank == 1);
  CHECK(li.master_addr.empty());  // rank 0's address comes by MPI broadcast
  CHECK_FALSE(li.single_host);  // Open MPI did not say how many share this host
  env.set("OMPI_COMM_WORLD_LOCAL_SIZE", "4");
  CHECK(detect_launch().single_host);  // the store may listen on loopback
  env.set("RANK", "2");           // torchrun-style variables that disagree with mpirun's
  CHECK_THROWS_WITH(detect_launch(), Catch::Contains("inconsistent") && Catch::Contains("RANK=2"));
}

TEST_CASE("launch: Slurm variables with the launch node as rendezvous host") {
  CleanEnv env;
  env.set("SLURM_PROCID", "1");
  env.set("SLURM_NTASKS", "8");
  env.set("SLURM_STEP_NUM_TASKS", "2");
  env.set("SLURM_LOCALID", "1");
  env.set("SLURM_LAUNCH_NODE_IPADDR", "10.0.0.5");
  const LaunchInfo li = detect_launch();
  CHECK(li.launcher == Launcher::Slurm);
  CHECK(li.world_size == 2);  // the step's tasks, not the allocation's
  CHECK(li.rank == 1);
  CHECK(li.local_rank == 1);
  CHECK(li.master_addr == "10.0.0.5");
  CHECK(li.master_port == 29500);
  env.set("SLURM_JOB_NODELIST", "big[1-64]");
  env.set("SLURM_STEP_NODELIST", "gpu[07-08],cpu1");
  CHECK(detect_launch().master_addr == "gpu07");  // task 0's node, not the launch node
  env.set("SLURM_STEP_NODELIST", "gpu[07-08");
  CHECK_THROWS_WITH(detect_launch(), Catch::Contains("SLURM_STEP_NODELIST"));
}

TEST_CASE("slurm host lists: the first host") {
  CHECK(first_slurm_host("node1", "L") == "node1");
  CHECK(first_slurm_host("a,b,c", "L") == "a");
  CHECK(first_slurm_host("gpu[003-006,009]", "L") == "gpu003");
  CHECK(first_slurm_host("rack[4,2]-n1,x", "L") == "rack4-n1");
  CHECK_THROWS_AS(first_slurm_host("", "L"), UsageError);
  CHECK_THROWS_AS(first_slurm_host("n[a-b]", "L"), UsageError);
  CHECK_THROWS_AS(first_slurm_host("n]1[", "L"), UsageError);
}

TEST_CASE("launch: torchrun-style variables and their errors") {
  CleanEnv env;
  env.set("RANK", "1");
  env.set("WORLD_SIZE", "2");
  env.set("LOCAL_RANK", "0");
  env.set("MASTER_ADDR", "127.0.0.1");
  env.set("MASTER_PORT", "29612");
  LaunchInfo li = detect_launch();
  CHECK(li.launcher == Launcher::Env);
  CHECK(li.rank == 1);
  CHECK(li.master_port == 29612);
  env.set("RANK", "2");
  CHECK_THROWS_AS(detect_launch(), UsageError);  // rank outside the world
  env.set("RANK", "x");
  CHECK_THROWS_WITH(detect_launch(), Catch::Contains("RANK='x'"));
  env.set("RANK", "1");
  env.set("MASTER_PORT", "70000");
  CHECK_THROWS_WITH(detect_launch(), Catch::Contains("MASTER_PORT"));
  env.set("MASTER_PORT", "29612");
  unsetenv("MASTER_ADDR");
  CHECK_THROWS_WITH(detect_launch(), Catch::Contains("MASTER_ADDR"));
  unsetenv("WORLD_SIZE");
  CHECK_THROWS_WITH(detect_launch(), Catch::Contains("together"));
}

TEST_CASE("transport: parsing checks names, device applicability and duplicates") {
  CHECK(parse_transports("auto,p2p,shm,net", DeviceKind::Cuda) ==
        std::vector<Transport>{Transport::Auto, Transport::P2p, Transport::Shm, Transport::Net});
  CHECK(parse_transports("tcp,auto,local", DeviceKind::Cpu) ==
        std::vector<Transport>{Transport::Tcp, Transport::Auto, Transport::Local});
  CHECK_THROWS_WITH(parse_transports("local", DeviceKind::Cuda), Catch::Contains("does not apply to --device cuda"));
  CHECK_THROWS_WITH(parse_transports("nvlink", DeviceKind::Cuda), Catch::Contains("unknown") && Catch::Contains("auto, p2p, shm, net"));
  CHECK_THROWS_WITH(parse_transports("auto,shm", DeviceKind::Cpu), Catch::Contains("does not apply to --device cpu"));
  CHECK_THROWS_AS(parse_transports("tcp", DeviceKind::Cuda), UsageError);
  CHECK_THROWS_AS(parse_transports("auto,,net", DeviceKind::Cuda), UsageError);
  CHECK_THROWS_WITH(parse_transports("net,net", DeviceKind::Cuda), Catch::Contains("twice"));
}

TEST_CASE("transport: shm and net turn NVLS and CollNet off unless the user set them") {
  using Env = std::map<std::string, std::string>;
  for (Transport t : {Transport::Shm, Transport::Net}) {
    INFO(transport_name(t));
    const TransportEnv plain = transport_env(t, DeviceKind::Cuda, {});
    CHECK(plain.set.at("NCCL_NVLS_ENABLE") == "0");
    CHECK(plain.set.at("NCCL_COLLNET_ENABLE") == "0");
    CHECK(plain.kept.empty());
    // A user's explicit choice stays in force and is recorded with their value; the other switch is still set.
    const TransportEnv user = transport_env(t, DeviceKind::Cuda, Env{{"NCCL_NVLS_ENABLE", "1"}});
    CHECK(user.set.count("NCCL_NVLS_ENABLE") == 0);
    CHECK(user.kept == Env{{"NCCL_NVLS_ENABLE", "1"}});
    CHECK(user.set.at("NCCL_COLLNET_ENABLE") == "0");
    CHECK(user.recorded().at("NCCL_NVLS_ENABLE") == "1");
    CHECK(user.recorded().at("NCCL_COLLNET_ENABLE") == "0");
  }
  CHECK(transport_env(Transport::Net, DeviceKind::Cuda, {}).set == Env{{"NCCL_P2P_DISABLE", "1"},
                                                                        {"NCCL_SHM_DISABLE", "1"},
                                                                        {"NCCL_NVLS_ENABLE", "0"},
                                                                        {"NCCL_COLLNET_ENABLE", "0"}});
  CHECK(transport_env(Transport::Shm, DeviceKind::Cuda, {}).set == Env{{"NCCL_P2P_DISABLE", "1"},
                                                                        {"NCCL_SHM_DISABLE", "0"},
                                                                        {"NCCL_NVLS_ENABLE", "0"},
                                                                        {"NCCL_COLLNET_ENABLE", "0"}});
  // p2p measures NVLink/PCIe peer copies, which NVLS does not replace; auto leaves NCCL to the user's environment.
  CHECK(transport_env(Transport::P2p, DeviceKind::Cuda, {}).set.count("NCCL_NVLS_ENABLE") == 0);
  CHECK(transport_env(Transport::Auto, DeviceKind::Cuda, {}).recorded().empty());
  CHECK_THROWS_AS(transport_env(Transport::Shm, DeviceKind::Cpu, {}), UsageError);
}

TEST_CASE("transport: each entry sets its NCCL variables and restores the previous ones") {
  setenv("NCCL_P2P_DISABLE", "user-value", 1);
  unsetenv("NCCL_SHM_DISABLE");
  unsetenv("NCCL_COLLNET_ENABLE");
  setenv("NCCL_NVLS_ENABLE", "1", 1);
  {
    ScopedTransport net(Transport::Net, DeviceKind::Cuda);
    CHECK(std::string(std::getenv("NCCL_P2P_DISABLE")) == "1");
    CHECK(std::string(std::getenv("NCCL_SHM_DISABLE")) == "1");
    CHECK(std::string(std::getenv("NCCL_COLLNET_ENABLE")) == "0");
    CHECK(std::string(std::getenv("NCCL_NVLS_ENABLE")) == "1");  // the user's, kept
    CHECK(net.vars() == std::map<std::string, std::string>{{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "1"},
                                                           {"NCCL_COLLNET_ENABLE", "0"}, {"NCCL_NVLS_ENABLE", "1"}});
    CHECK(nccl_environment().at("NCCL_SHM_DISABLE") == "1");
  }
  CHECK(std::string(std::getenv("NCCL_P2P_DISABLE")) == "user-value");
  CHECK(std::getenv("NCCL_SHM_DISABLE") == nullptr);
  CHECK(std::getenv("NCCL_COLLNET_ENABLE") == nullptr);
  CHECK(std::string(std::getenv("NCCL_NVLS_ENABLE")) == "1");
  unsetenv("NCCL_NVLS_ENABLE");
  {
    ScopedTransport shm(Transport::Shm, DeviceKind::Cuda);
    CHECK(std::string(std::getenv("NCCL_P2P_DISABLE")) == "1");
    CHECK(std::string(std::getenv("NCCL_SHM_DISABLE")) == "0");
  }
  {
    ScopedTransport aut(Transport::Auto, DeviceKind::Cuda);  // the user's environment decides
    CHECK(aut.vars().empty());
    CHECK(std::string(std::getenv("NCCL_P2P_DISABLE")) == "user-value");
  }
  {
    ScopedTransport tcp(Transport::Tcp, DeviceKind::Cpu);
    CHECK(tcp.vars().empty());
  }
  unsetenv("NCCL_P2P_DISABLE");
}
