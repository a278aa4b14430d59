/* Whether malloc's mmap threshold is where the application left it (glibc's default, 128 KiB,
 * dynamic): after MPI_Init, blocks of 1 and 4 MiB that the heap's free memory cannot hold must
 * come from fresh mappings. A library that frees a large block during MPI_Init raises the
 * threshold to that block's size and these come from the heap instead (src/mapped_alloc.hpp).
 * Prints one line per rank: "heap_probe rank R: K of 2 mapped (free heap F B)". The blocks are
 * kept, not freed: freeing one would move the threshold itself. */
#include <malloc.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const size_t sizes[2] = {1u << 20, 4u << 20};
  const size_t free_heap = mallinfo2().fordblks;
  int mapped = 0;
  for (int i = 0; i < 2; ++i) {
    size_t n = sizes[i] > free_heap + (64u << 10) ? sizes[i] : free_heap + (64u << 10);
    const size_t before = mallinfo2().hblks;
    char* p = malloc(n);
    if (p) memset(p, 1, 64);
    if (p && mallinfo2().hblks == before + 1) ++mapped;
  }
  printf("heap_probe rank %d: %d of 2 mapped (free heap %zu B)\n", rank, mapped, free_heap);
  MPI_Finalize();
  return 0;
}
