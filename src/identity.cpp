#include "identity.hpp"

#include <hwloc.h>
#include <mpi.h>

#include <new>

#include "algorithms/waits.hpp"
#include "mapped_alloc.hpp"
#include "runtime/agreement.hpp"
#include "test_hooks.hpp"

namespace colltune {

namespace {

// "/numaK" or "/pkgK" when this process's binding lies inside one NUMA node or package, else "".
std::string binding_place() {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return {};
  std::string place;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (set && hwloc_topology_load(topo) == 0 &&
      hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) {
    const hwloc_const_bitmap_t all = hwloc_topology_get_topology_cpuset(topo);
    if (!hwloc_bitmap_isincluded(all, set)) {  // bound to less than the whole machine
      for (auto [type, prefix] :
           {std::pair{HWLOC_OBJ_NUMANODE, "/numa"}, std::pair{HWLOC_OBJ_PACKAGE, "/pkg"}}) {
        const int n = hwloc_get_nbobjs_by_type(topo, type);
        for (int i = 0; i < n && place.empty(); ++i) {
          hwloc_obj_t o = hwloc_get_obj_by_type(topo, type, i);
          if (n > 1 && o->cpuset && hwloc_bitmap_isincluded(set, o->cpuset)) {
            place = prefix + std::to_string(o->logical_index);
          }
        }
        if (!place.empty()) break;
      }
    }
  }
  if (set) hwloc_bitmap_free(set);
  hwloc_topology_destroy(topo);
  return place;
}

}  // namespace

std::string process_identity(const std::optional<std::string>& override_id) {
  if (override_id) return override_id->substr(0, kMaxIdentity);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  if (PMPI_Get_processor_name(name, &len) != MPI_SUCCESS || len <= 0) return "unknown";
  std::string id(name, static_cast<std::size_t>(len));
  for (char& c : id) {
    if (c == ' ' || c == '/') c = '_';
  }
  return (id + binding_place()).substr(0, kMaxIdentity);
}

int gather_identities(MPI_Comm comm, const std::optional<std::string>& override_id,
                      std::vector<std::string>* out) {
  constexpr int kChars = kMaxIdentity + 1;
  int size = 0;
  int rc = PMPI_Comm_size(comm, &size);
  if (rc != MPI_SUCCESS) return rc;
  std::string mine;
  MappedVector<char> all;
  bool ok = true;
  try {
    if (hooks::fail_here("init.identities")) throw std::bad_alloc();
    mine = process_identity(override_id);
    mine.resize(kChars - 1, '\0');
    all.resize(static_cast<std::size_t>(kChars) * size);  // 128 KiB at 1024 ranks
    out->reserve(static_cast<std::size_t>(size));
  } catch (const std::exception&) {
    ok = false;
  }
  bool every = false;
  if ((rc = all_ok(comm, ok, &every)) != MPI_SUCCESS) return rc;
  if (!every) return MPI_ERR_NO_MEM;
  rc = waits::allgather(mine.c_str(), kChars, MPI_CHAR, all.data(), kChars, MPI_CHAR, comm);
  for (int r = 0; r < size && rc == MPI_SUCCESS; ++r) {
    out->emplace_back(all.data() + static_cast<std::size_t>(r) * kChars);
  }
  return rc;
}

}  // namespace colltune
