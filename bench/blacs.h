/* BLACS and ScaLAPACK's tools as the C programs of bench/ call them (Debian's
 * libscalapack-mpich ships no C header for them). */
#ifndef COLLTUNE_BENCH_BLACS_H
#define COLLTUNE_BENCH_BLACS_H

void Cblacs_pinfo(int *, int *);
void Cblacs_get(int, int, int *);
void Cblacs_gridinit(int *, const char *, int, int);
void Cblacs_gridinfo(int, int *, int *, int *, int *);
void Cblacs_gridexit(int);
int numroc_(const int *, const int *, const int *, const int *, const int *);
void descinit_(int *, const int *, const int *, const int *, const int *, const int *, const int *,
               const int *, const int *, int *);

#endif
