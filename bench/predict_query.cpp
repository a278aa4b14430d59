// The cost of a forecast query through the C API (include/colltune/predict.h): the first
// (uncached: computed from the loaded table) against the same query repeated (remembered).
// Usage: bench_predict_query TABLE COMP_MODEL [REPEATS]   (docs/forecast.md)
#include <colltune/predict.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {
double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_predict_query TABLE COMP_MODEL [REPEATS]\n");
    return 2;
  }
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 100000;
  double t0 = now();
  colltune_predictor* p = nullptr;
  if (colltune_predictor_open(argv[1], argv[2], &p) != COLLTUNE_PREDICT_OK) {
    std::fprintf(stderr, "bench_predict_query: %s\n", p ? colltune_predictor_error(p) : "?");
    return 2;
  }
  std::printf("open (load table and model): %.1f us\n", (now() - t0) * 1e6);
  double s = 0;
  char algorithm[32];
  const double mnk[] = {2048, 2048, 2048};
  const std::vector<std::pair<std::string, std::function<int(double)>>> queries = {
      {"comm h0 -> h5, 1 MB",
       [&](double b) { return colltune_predict_comm(p, "h0", "h5", b, &s, nullptr); }},
      {"coll scatter root 0, 64 KiB",
       [&](double b) {
         return colltune_predict_coll(p, "scatter", 0, b, nullptr, 0, &s, algorithm,
                                      sizeof algorithm);
       }},
      {"routine pdgemm 2048^3 2x2 R 64", [&](double b) {
         const double x[] = {mnk[0] + b * 0, mnk[1], mnk[2]};
         return colltune_predict_routine(p, "pdgemm", nullptr, x, 3, 64, 2, 2, nullptr, 0, &s);
       }}};
  const double bytes[] = {1e6, 65536, 0};
  for (std::size_t i = 0; i < queries.size(); ++i) {
    t0 = now();
    if (queries[i].second(bytes[i]) != COLLTUNE_PREDICT_OK) {
      std::fprintf(stderr, "bench_predict_query: %s\n", colltune_predictor_error(p));
      return 1;
    }
    const double first = now() - t0;
    t0 = now();
    for (int r = 0; r < repeats; ++r) queries[i].second(bytes[i]);
    const double cached = (now() - t0) / repeats;
    std::printf("%-32s first %10.1f us   repeated %8.3f us (mean of %d)\n",
                queries[i].first.c_str(), first * 1e6, cached * 1e6, repeats);
  }
  colltune_predictor_close(p);
  return 0;
}
