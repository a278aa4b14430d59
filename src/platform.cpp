#include "platform.hpp"

#include <hwloc.h>
#include <mpi.h>
#include <unistd.h>

#include <cctype>

namespace colltune {

std::string hwloc_summary() {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return "unknown";
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return "unknown";
  }
  auto count = [&](hwloc_obj_type_t t) {
    const int n = hwloc_get_nbobjs_by_type(topo, t);
    return std::to_string(n < 0 ? 0 : n);
  };
  std::string s = "packages=" + count(HWLOC_OBJ_PACKAGE) + " numa=" + count(HWLOC_OBJ_NUMANODE) +
                  " cores=" + count(HWLOC_OBJ_CORE) + " pus=" + count(HWLOC_OBJ_PU);
  hwloc_topology_destroy(topo);
  return s;
}

HostFingerprint this_host() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) name[0] = '\0';
  return {name, hwloc_summary()};
}

std::string mpi_library_version() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  if (PMPI_Get_library_version(buf, &len) != MPI_SUCCESS) return "unknown";
  std::string out;
  bool space = false;
  for (int i = 0; i < len && buf[i] != '\n' && buf[i] != '\0'; ++i) {
    if (std::isspace(static_cast<unsigned char>(buf[i]))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += buf[i];
  }
  return out;
}

}  // namespace colltune
