// colltune-predict app: the command line of the application forecasts (docs/app-models.md).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "forecast/links.hpp"
#include "forecast/output.hpp"
#include "table/model_table.hpp"

struct AppQuery {
  std::string model, table, links, node, n, best_n, per_node,
      costs = "lmo", eager = "0", flops_rate, cores, noise, checkpoint, objective = "time",
      energy_cap;
  std::vector<std::string> vars;
  bool idle_wait = false, mpich = false;
};

struct FitQuery {
  std::vector<std::string> csv;
  std::string output, dtu = "2048", p_low, p_hi, like;
};

// Adds the subcommands and their options to p.
CLI::App* add_app_command(colltune::cli::Parser* p, AppQuery* q);
CLI::App* add_fit_command(colltune::cli::Parser* p, FitQuery* q);

// The table with its re-measured links, or false after one line (main.cpp's loader).
using TableLoader =
    std::function<bool(const std::string& table, const std::string& links, colltune::ModelTable*,
                       std::vector<colltune::forecast::LinkMeasurement>*)>;
int cmd_app(const colltune::cli::Parser& p, const AppQuery& q, colltune::forecast::Format f,
            const TableLoader& load);
// colltune-predict fit: MERPSYS's formulas fitted to bench/apps/merpsys_blocks's CSV.
int cmd_fit(const colltune::cli::Parser& p, const FitQuery& q, colltune::forecast::Format f);
