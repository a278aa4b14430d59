// Datatype helpers used by the algorithms. All of them call PMPI_* only.
// Packed data: in MPICH on a homogeneous platform MPI_Pack writes exactly the type-signature
// bytes (count * type_size), so k blocks of one process occupy k * block_bytes packed bytes and
// packed buffers travel as MPI_PACKED (legal against any type signature on the other side).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace colltune::dt {

// Address of block `index` of a buffer holding blocks of `count` elements of `type`.
int block_address(const void* base, int count, MPI_Datatype type, int index, const void** out);

// True when `count` elements of `type` are one dense byte range starting at the buffer address
// (no gaps, no lower-bound shift), so the bytes can travel as MPI_PACKED without packing.
int is_dense(MPI_Datatype type, bool* out);

// Packs `count` elements of `type` at `src` into `out` (exactly `bytes` bytes are written).
int pack(const void* src, int count, MPI_Datatype type, void* out, std::uint64_t bytes,
         MPI_Comm comm);

// Unpacks `bytes` packed bytes from `in` into `count` elements of `type` at `dst`.
int unpack(const void* in, std::uint64_t bytes, void* dst, int count, MPI_Datatype type,
           MPI_Comm comm);

// A local copy between two buffers whose type signatures match (`bytes` bytes each side):
// memcpy when both types are dense, else through a packed buffer, else (over 2 GiB, too large
// for one MPI_Pack) as a message to self on `comm`, which must be a private communicator.
// prepare() decides and allocates (MPI_ERR_NO_MEM when it cannot; nothing thrown), so that
// callers do it before their first message; run() copies. Nothing is copied when bytes is 0 or
// src == dst.
class LocalCopy {
 public:
  int prepare(const void* src, int scount, MPI_Datatype stype, void* dst, int rcount,
              MPI_Datatype rtype, std::uint64_t bytes, MPI_Comm comm);
  int run();

 private:
  enum class Mode { kNone, kMemcpy, kPacked, kMessage };
  Mode mode_ = Mode::kNone;
  const void* src_ = nullptr;
  int scount_ = 0;
  MPI_Datatype stype_ = MPI_DATATYPE_NULL;
  void* dst_ = nullptr;
  int rcount_ = 0;
  MPI_Datatype rtype_ = MPI_DATATYPE_NULL;
  std::uint64_t bytes_ = 0;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<char> tmp_;
};

// prepare() then run().
int local_copy(const void* src, int scount, MPI_Datatype stype, void* dst, int rcount,
               MPI_Datatype rtype, std::uint64_t bytes, MPI_Comm comm);

}  // namespace colltune::dt
