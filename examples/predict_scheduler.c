/* FAST's motivating example with colltune's forecasts (include/colltune/predict.h): a job,
 * C = A B of n x n matrices with ScaLAPACK's PDGEMM, may run on one of two sets of hosts; which
 * finishes first? For each set, every p x q grid of its hosts and blocks of 32, 64 and 128 are
 * forecast (colltune_predict_best); the fastest of each set is printed, then the choice.
 * Usage: predict_scheduler TABLE COMP_MODEL N HOSTS_A HOSTS_B   (hosts: id,id,...) */
#include <colltune/predict.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HOSTS 64

static int split(char *list, const char **out) {
  int n = 0;
  for (char *s = strtok(list, ","); s && n < MAX_HOSTS; s = strtok(NULL, ",")) out[n++] = s;
  return n;
}

/* The fastest forecast on `hosts`, its grid and block; -1 on failure (message printed). */
static double fastest(colltune_predictor *p, double n, const char **hosts, int count, int *bp,
                      int *bq, int *bR) {
  const double sizes[3] = {n, n, n};
  const int blocks[3] = {32, 64, 128};
  double best = -1;
  if (colltune_predict_best(p, "pdgemm", NULL, sizes, 3, count, blocks, 3, hosts, count, 0, bp, bq,
                            bR, &best) != COLLTUNE_PREDICT_OK) {
    fprintf(stderr, "predict_scheduler: %s\n", colltune_predictor_error(p));
    return -1;
  }
  return best;
}

int main(int argc, char **argv) {
  if (argc != 6 || atof(argv[3]) <= 32) {
    fprintf(stderr, "usage: predict_scheduler TABLE COMP_MODEL N HOSTS_A HOSTS_B (N > 32)\n");
    return 2;
  }
  colltune_predictor *p = NULL;
  if (colltune_predictor_open(argv[1], argv[2], &p) != COLLTUNE_PREDICT_OK) {
    fprintf(stderr, "predict_scheduler: %s\n", p ? colltune_predictor_error(p) : "out of memory");
    colltune_predictor_close(p);
    return 2;
  }
  const char *a[MAX_HOSTS], *b[MAX_HOSTS];
  const int na = split(argv[4], a), nb = split(argv[5], b);
  int pa = 0, qa = 0, ra = 0, pb = 0, qb = 0, rb = 0;
  const double n = atof(argv[3]);
  const double ta = fastest(p, n, a, na, &pa, &qa, &ra);
  const double tb = ta < 0 ? -1 : fastest(p, n, b, nb, &pb, &qb, &rb);
  if (ta < 0 || tb < 0) {
    colltune_predictor_close(p);
    return 2;
  }
  printf("set A: %d hosts, best %dx%d R=%d: %.6g s\n", na, pa, qa, ra, ta);
  printf("set B: %d hosts, best %dx%d R=%d: %.6g s\n", nb, pb, qb, rb, tb);
  printf("choice: %s\n", ta <= tb ? "A" : "B");
  colltune_predictor_close(p);
  return 0;
}
