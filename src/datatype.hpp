// Datatype helpers used by the algorithms. All of them call PMPI_* only.
// Packed data: in MPICH on a homogeneous platform MPI_Pack writes exactly the type-signature
// bytes (count * type_size), so k blocks of one process occupy k * block_bytes packed bytes and
// packed buffers travel as MPI_PACKED (legal against any type signature on the other side).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>

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

// Copies between two buffers whose type signatures match (sizes equal), through a packed
// buffer unless both sides are dense.
int local_copy(const void* src, int scount, MPI_Datatype stype, void* dst, int rcount,
               MPI_Datatype rtype, std::uint64_t bytes, MPI_Comm comm);

}  // namespace colltune::dt
