/* colltune's forecasts for programs (docs/forecast.md): the time of a transfer, a collective,
 * a sequential kernel and a ScaLAPACK routine on a platform calibrated by colltune-calibrate,
 * as colltune-predict answers them. C, error codes; colltune/predict.hpp wraps it for C++.
 * A predictor loads its files once and remembers every answer: a repeated query is a lookup.
 * One predictor per thread (no locking inside). Link with colltune::predict (find_package). */
#ifndef COLLTUNE_PREDICT_H
#define COLLTUNE_PREDICT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum colltune_predict_status {
  COLLTUNE_PREDICT_OK = 0,
  COLLTUNE_PREDICT_BAD_ARGUMENT = 1, /* an unknown name, a size or rank out of range, NULL */
  COLLTUNE_PREDICT_BAD_FILE = 2,     /* a table or computation model missing or broken */
  COLLTUNE_PREDICT_NO_PATH = 3,      /* no measured path joins the two identities */
  COLLTUNE_PREDICT_NOT_MODELLED = 4, /* a routine variant the forecast does not model */
  COLLTUNE_PREDICT_NO_MEMORY = 5,    /* the operands exceed the memory available */
  COLLTUNE_PREDICT_FAILED = 6        /* anything else (out of memory, internal) */
};

typedef struct colltune_predictor colltune_predictor;

/* Opens a predictor on a calibrated table and, optionally (NULL), a computation model written
 * by `colltune-predict benchmark`. On failure *out is still a predictor whose
 * colltune_predictor_error() says why (close it), or NULL when even that could not be made. */
int colltune_predictor_open(const char *table, const char *comp_model, colltune_predictor **out);
/* Adds a computation model measured at another occupancy (benchmark --occupancy N). */
int colltune_predictor_add_model(colltune_predictor *p, const char *comp_model);
/* The MPI's rendezvous threshold in bytes for routine forecasts (default 0: every message holds
 * its sender until received; INFINITY: every message is eager). */
int colltune_predictor_set_eager(colltune_predictor *p, double bytes);
/* Links measured again after calibration (`colltune-predict measure-link`, a links file) take
 * the calibrated ones' place in every query; NULL: none. The file is read again when it
 * changes (looked at no more than once a second) and the remembered answers are forgotten. */
int colltune_predictor_set_links(colltune_predictor *p, const char *links_file);
void colltune_predictor_close(colltune_predictor *p);
/* The last failure's one line (file, field, valid values), or "" after a success. */
const char *colltune_predictor_error(const colltune_predictor *p);

/* Seconds to move `bytes` from identity `from`'s process to identity `to`'s (LMO link;
 * *combined set to 1 when no table measured the pair and the path was combined, FAST). */
int colltune_predict_comm(colltune_predictor *p, const char *from, const char *to, double bytes,
                          double *seconds, int *combined);

/* Seconds since the link from -> to that comm uses was measured (a combined link: its oldest
 * hop), INFINITY when the table records no date: a caller compares it with its own deadline
 * and re-measures (measure-link) what is too old. */
int colltune_predict_link_age(colltune_predictor *p, const char *from, const char *to,
                              double *seconds);

/* Seconds of `op` (bcast, scatter, gather) of `bytes` per process from `root` on the
 * communicator whose rank r runs on identity members[r] (n_members 0: the calibrated ranks),
 * with the algorithm the library would pick (copied to `algorithm`, NUL-terminated). */
int colltune_predict_coll(colltune_predictor *p, const char *op, int root, double bytes,
                          const char *const *members, int n_members, double *seconds,
                          char *algorithm, size_t algorithm_size);

/* The same with one algorithm of the library's registry (bcast: native, linear, binomial, ecef,
 * chain; ...; an unknown name is refused with the valid ones), candidate or not: its predicted
 * seconds, and *picked (may be NULL) 1 when it is what the library would run. */
int colltune_predict_coll_algorithm(colltune_predictor *p, const char *op, const char *algorithm,
                                    int root, double bytes, const char *const *members,
                                    int n_members, double *seconds, int *picked);
/* Seconds of one call of `kernel` (dgemm: M,N,K; dtrsm, add: M,N; daxpy: N); refused with
 * COLLTUNE_PREDICT_NO_MEMORY when its operands exceed the memory available now. */
int colltune_predict_comp(colltune_predictor *p, const char *kernel, const double *sizes,
                          int n_sizes, double *seconds);
/* The bytes of that call's operands (the memory it needs), with the same refusal. */
int colltune_predict_comp_memory(colltune_predictor *p, const char *kernel, const double *sizes,
                                 int n_sizes, double *bytes);

/* Seconds of `routine` (pdgemm: sizes M,N,K; pdtrsm: M,N and `form`, side uplo trans as "LUN")
 * on a p x q grid of the members (as for coll) with blocks of `block`. */
int colltune_predict_routine(colltune_predictor *p, const char *routine, const char *form,
                             const double *sizes, int n_sizes, int block, int grid_p, int grid_q,
                             const char *const *members, int n_members, double *seconds);
/* The fastest grid (p q <= processes and the members) and block of `blocks` for `routine`, as
 * colltune_predict_routine forecasts them (FAST's fast_parallel_comp_time_best); a grid whose
 * local operands and buffers exceed `memory` bytes per process (0: no limit) is no choice
 * (COLLTUNE_PREDICT_NO_MEMORY when none fits). */
int colltune_predict_best(colltune_predictor *p, const char *routine, const char *form,
                          const double *sizes, int n_sizes, int processes, const int *blocks,
                          int n_blocks, const char *const *members, int n_members, double memory,
                          int *grid_p, int *grid_q, int *block, double *seconds);

#ifdef __cplusplus
}
#endif

#endif /* COLLTUNE_PREDICT_H */
