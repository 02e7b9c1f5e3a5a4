// The paths a communicator's bytes can take (--transport), named once. Lives in core so the run description
// (src/result) can hold parsed transports without depending on comm/, which applies them (comm/transport.h).
#pragma once
#include "core/name_table.h"

namespace mg {

// Auto: as the library chooses (NCCL: its own choice under the user's NCCL_*; CPU: threads of one process through
// shared memory, processes through Gloo's TCP). P2p, Shm, Net: NCCL forced to one path. Tcp: Gloo for every rank
// on CPU. Local: the shared-memory communicator among the replica threads of one CPU process.
enum class Transport { Auto, P2p, Shm, Net, Tcp, Local };
inline constexpr NameTable<Transport, 6> kTransportNames{{{{"auto", Transport::Auto},
                                                           {"p2p", Transport::P2p},
                                                           {"shm", Transport::Shm},
                                                           {"net", Transport::Net},
                                                           {"tcp", Transport::Tcp},
                                                           {"local", Transport::Local}}}};
inline const char* transport_name(Transport t) { return kTransportNames.name(t); }

}  // namespace mg
