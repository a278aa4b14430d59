// The recorder of libcolltune_record.so (COLLTUNE_RECORD=DIR, docs/recording.md): one
// time-independent trace per rank in SimGrid's replay format, so that `smpirun -replay` and
// colltune's own tools can run the same application on another platform. PMPI only; nothing
// throws; a failure to write turns recording off with one line and never the application.
#pragma once

#include <mpi.h>

namespace colltune::record {

// Called by the wrappers after PMPI_Init*: opens DIR/rank-N.ti when COLLTUNE_RECORD is set.
void start();
// Before PMPI_Finalize: closes the trace; rank 0 writes DIR/traces (the rank files in order).
void stop();
// MPI_Pcontrol(level): with COLLTUNE_RECORD_WINDOW=N only the N-th window opened by a level
// >= 1 and closed by level 0 is recorded (from a barrier that aligns its start).
void pcontrol(int level);

// True while calls are recorded. Each recorded call brackets its PMPI call with enter() (the
// computation since the previous call ends) and leave() (the computation starts again; on the
// wall clock, a call that wrote actions is followed by `# took SECONDS`, what it took).
bool on();
// Whether comm has one process (its collectives are no communication).
bool alone(MPI_Comm comm);
void enter();
void leave();

// Point-to-point: ranks of `comm`, sizes count x the datatype's size, tags as given.
void send(const char* action, int dest, int tag, int count, MPI_Datatype type, MPI_Comm comm);
void recv(const char* action, int source, int tag, int count, MPI_Datatype type, MPI_Comm comm);
// A posted request: its world ranks and tag, written as `wait` when it completes.
void posted(MPI_Request req, bool is_send, int peer, int tag, MPI_Comm comm);
void completed(MPI_Request req);
// A blocking receive from MPI_ANY_SOURCE or MPI_ANY_TAG, written once the status tells.
void received(const MPI_Status* status, int count, MPI_Datatype type, MPI_Comm comm);
// The wait of a receive posted and completed within one call (MPI_Sendrecv).
void wait_for(int source, int tag, MPI_Comm comm);
long long bytes(int count, MPI_Datatype type);

// Collectives: on a communicator of every process as SimGrid's actions; on one of part of them
// as `ACTION@K` after a line `comm K W0 W1 ...` that gives its members (colltune's replay takes
// them, SimGrid's refuses the action); a communicator whose members cannot be read: marked
// unsupported (colltune's replay then refuses the trace, naming it).
void bcast(int count, MPI_Datatype type, int root, MPI_Comm comm);
void barrier(MPI_Comm comm);
void reduce(const char* action, int count, MPI_Datatype type, int root, MPI_Comm comm);
// Gather and scatter: `bytes` per process (the significant count of each rank).
void gather(const char* action, long long bytes, int root, MPI_Comm comm);
void alltoall(int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype, MPI_Comm comm);
void unsupported(const char* call, MPI_Comm comm);

void comm_freed(MPI_Comm comm);

}  // namespace colltune::record
