// Storage for the library's large temporaries that never goes through malloc.
//
// Why: glibc's malloc serves blocks from M_MMAP_THRESHOLD (128 KiB by default) upwards with a
// fresh mapping and, while the threshold is dynamic (the default), raises it to the size of every
// such block that free() returns, up to 32 MiB. A single large temporary freed inside MPI_Init
// (a model table's text, a calibration buffer) therefore moves every later large buffer of the
// application from fresh mappings to the heap, which changes its communication speed: with the
// table loaded and every call forced to native, a 256 KiB MPI_Bcast ran at 0.925x of the same
// application without colltune (docs/calibration.md, "Heap neutrality").
//
// Contract: a block of at least kMappedBytes is mmap'ed and munmap'ed directly, so malloc's
// state is never touched by it; smaller blocks use operator new (below any threshold malloc
// keeps by default, they are heap blocks either way). Allocation failure throws
// std::bad_alloc. Code the preloaded library runs uses these types for any container that can
// grow beyond 64 KiB (tests/calibrate-test.sh heap checks the result at MPI_Init).
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace colltune {

inline constexpr std::size_t kMappedBytes = 64u << 10;

template <class T>
struct MappedAllocator {
  using value_type = T;
  MappedAllocator() noexcept = default;
  template <class U>
  MappedAllocator(const MappedAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kMappedBytes) return static_cast<T*>(::operator new(bytes));
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kMappedBytes) {
      ::operator delete(p);
    } else {
      munmap(p, bytes);
    }
  }
  template <class U>
  bool operator==(const MappedAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using MappedVector = std::vector<T, MappedAllocator<T>>;
using MappedString = std::basic_string<char, std::char_traits<char>, MappedAllocator<char>>;
using MappedOStream = std::basic_ostringstream<char, std::char_traits<char>, MappedAllocator<char>>;

// A read-only std::istream over bytes it does not own (no copy): for parsers that read streams.
class ViewStream : private std::streambuf, public std::istream {
 public:
  explicit ViewStream(std::string_view text) : std::istream(this) {
    char* p = const_cast<char*>(text.data());  // never written: no put area, no putback
    setg(p, p, p + text.size());
  }
};

}  // namespace colltune
