// A C++ consumer of the installed forecasts (colltune/predict.hpp): a transfer's time, and an
// unknown identity thrown as PredictError with its status.
#include <colltune/predict.hpp>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  colltune::Predictor p(argv[1]);
  const double s = p.comm("h0", "h1", 1 << 20);
  try {
    p.comm("h0", "no-such-host", 8);
    return 1;
  } catch (const colltune::PredictError& e) {
    if (e.status != COLLTUNE_PREDICT_BAD_ARGUMENT) return 1;
  }
  std::printf("comm: %.9g\n", s);
  return s > 0 ? 0 : 1;
}
