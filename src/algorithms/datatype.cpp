#include "datatype.hpp"

#include <climits>
#include <cstring>
#include <exception>
#include <vector>

#include "collective.hpp"

namespace colltune::dt {

int block_address(const void* base, int count, MPI_Datatype type, int index, const void** out) {
  MPI_Aint lb = 0, extent = 0;
  const int rc = PMPI_Type_get_extent(type, &lb, &extent);
  if (rc != MPI_SUCCESS) return rc;
  *out = static_cast<const char*>(base) +
         static_cast<MPI_Aint>(index) * static_cast<MPI_Aint>(count) * extent;
  return MPI_SUCCESS;
}

namespace {

// Dense: predefined types whose size equals their extent, and contiguous types built from
// dense types. Anything else (vector, struct, resized, indexed, pair types) is packed.
int dense_rec(MPI_Datatype type, int depth, bool* out) {
  *out = false;
  if (depth > 8) return MPI_SUCCESS;
  int ni = 0, na = 0, nd = 0, combiner = 0;
  int rc = PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
  if (rc != MPI_SUCCESS) return rc;
  if (combiner == MPI_COMBINER_NAMED) {
    int size = 0;
    MPI_Aint lb = 0, extent = 0;
    if ((rc = PMPI_Type_size(type, &size)) != MPI_SUCCESS) return rc;
    if ((rc = PMPI_Type_get_extent(type, &lb, &extent)) != MPI_SUCCESS) return rc;
    *out = lb == 0 && extent == size;
    return MPI_SUCCESS;
  }
  if (combiner != MPI_COMBINER_CONTIGUOUS || ni != 1 || nd != 1) return MPI_SUCCESS;
  int count = 0;
  MPI_Aint unused = 0;
  MPI_Datatype inner = MPI_DATATYPE_NULL;
  rc = PMPI_Type_get_contents(type, 1, 0, 1, &count, &unused, &inner);
  if (rc != MPI_SUCCESS) return rc;
  rc = dense_rec(inner, depth + 1, out);
  int ic = 0, ia = 0, id = 0, icomb = 0;
  int frc = PMPI_Type_get_envelope(inner, &ic, &ia, &id, &icomb);
  if (frc == MPI_SUCCESS && icomb != MPI_COMBINER_NAMED) frc = PMPI_Type_free(&inner);
  return rc != MPI_SUCCESS ? rc : frc;
}

}  // namespace

int is_dense(MPI_Datatype type, bool* out) { return dense_rec(type, 0, out); }

int pack(const void* src, int count, MPI_Datatype type, void* out, std::uint64_t bytes,
         MPI_Comm comm) {
  if (bytes == 0) return MPI_SUCCESS;
  int position = 0;
  const int rc = PMPI_Pack(src, count, type, out, static_cast<int>(bytes), &position, comm);
  if (rc != MPI_SUCCESS) return rc;
  return static_cast<std::uint64_t>(position) == bytes ? MPI_SUCCESS : MPI_ERR_INTERN;
}

int unpack(const void* in, std::uint64_t bytes, void* dst, int count, MPI_Datatype type,
           MPI_Comm comm) {
  if (bytes == 0) return MPI_SUCCESS;
  int position = 0;
  return PMPI_Unpack(in, static_cast<int>(bytes), &position, dst, count, type, comm);
}

int LocalCopy::prepare(const void* src, int scount, MPI_Datatype stype, void* dst, int rcount,
                       MPI_Datatype rtype, std::uint64_t bytes, MPI_Comm comm) {
  *this = LocalCopy();
  if (bytes == 0 || src == dst) return MPI_SUCCESS;
  src_ = src, scount_ = scount, stype_ = stype, dst_ = dst, rcount_ = rcount, rtype_ = rtype;
  bytes_ = bytes, comm_ = comm;
  bool sd = false, rd = false;
  int rc = is_dense(stype, &sd);
  if (rc == MPI_SUCCESS) rc = is_dense(rtype, &rd);
  if (rc != MPI_SUCCESS) return rc;
  if (sd && rd) {
    mode_ = Mode::kMemcpy;
  } else if (bytes > static_cast<std::uint64_t>(INT_MAX)) {
    mode_ = Mode::kMessage;
  } else {
    mode_ = Mode::kPacked;
    try {
      tmp_.resize(bytes);
    } catch (const std::exception&) {
      return MPI_ERR_NO_MEM;
    }
  }
  return MPI_SUCCESS;
}

int LocalCopy::run() {
  switch (mode_) {
    case Mode::kNone:
      return MPI_SUCCESS;
    case Mode::kMemcpy:
      std::memcpy(dst_, src_, bytes_);
      return MPI_SUCCESS;
    case Mode::kPacked: {
      const int rc = pack(src_, scount_, stype_, tmp_.data(), bytes_, comm_);
      return rc != MPI_SUCCESS ? rc : unpack(tmp_.data(), bytes_, dst_, rcount_, rtype_, comm_);
    }
    case Mode::kMessage: {
      int me = 0;
      const int rc = PMPI_Comm_rank(comm_, &me);
      if (rc != MPI_SUCCESS) return rc;
      return PMPI_Sendrecv(src_, scount_, stype_, me, kTagCopy, dst_, rcount_, rtype_, me, kTagCopy,
                           comm_, MPI_STATUS_IGNORE);
    }
  }
  return MPI_ERR_INTERN;
}

int local_copy(const void* src, int scount, MPI_Datatype stype, void* dst, int rcount,
               MPI_Datatype rtype, std::uint64_t bytes, MPI_Comm comm) {
  LocalCopy copy;
  const int rc = copy.prepare(src, scount, stype, dst, rcount, rtype, bytes, comm);
  return rc != MPI_SUCCESS ? rc : copy.run();
}

}  // namespace colltune::dt
