// The C ABI of libcolltune_record.so (docs/recording.md): record-only wrappers, pass-through
// to PMPI_*, writing a time-independent trace per rank when COLLTUNE_RECORD is set (else
// nothing but the pass-through). The only MPI_* symbols of that library; nothing throws.
#include <mpi.h>

#include <vector>

#include "../src/record/trace.hpp"

namespace rec = colltune::record;

namespace {

// Runs one PMPI call, recorded when the window is open: the computation before it ends, the
// call is written by `write` (before or after the call, as `after` says), the computation
// after it starts.
template <class Call, class Write>
int recorded(Call&& call, Write&& write, bool after = false) {
  if (!rec::on()) return call();
  rec::enter();
  if (!after) write();
  const int rc = call();
  if (after && rc == MPI_SUCCESS) write();
  rec::leave();
  return rc;
}

// A collective: on a communicator of one process it moves nothing between processes, so it
// passes through unrecorded and its time counts as the computation around it.
template <class Call, class Write>
int collective(MPI_Comm comm, Call&& call, Write&& write) {
  if (rec::on() && rec::alone(comm)) return call();
  return recorded(call, write);
}

}  // namespace

#pragma GCC visibility push(default)
extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) rec::start();
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) rec::start();
  return rc;
}

int MPI_Finalize(void) {
  rec::stop();
  return PMPI_Finalize();
}

int MPI_Pcontrol(const int level, ...) {
  rec::pcontrol(level);
  return MPI_SUCCESS;
}

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return recorded([&] { return PMPI_Send(buf, count, type, dest, tag, comm); },
                  [&] { rec::send("send", dest, tag, count, type, comm); });
}

int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return recorded([&] { return PMPI_Rsend(buf, count, type, dest, tag, comm); },
                  [&] { rec::send("send", dest, tag, count, type, comm); });
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return recorded([&] { return PMPI_Ssend(buf, count, type, dest, tag, comm); },
                  [&] { rec::send("send", dest, tag, count, type, comm); });
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  MPI_Status mine;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &mine : status;
  return recorded([&] { return PMPI_Recv(buf, count, type, source, tag, comm, st); },
                  [&] { rec::received(st, count, type, comm); }, true);
}

int MPI_Sendrecv(const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag, void* rbuf,
                 int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                 MPI_Status* status) {
  // Replayed as a posted receive, a send and the wait (the replay format has no sendrecv).
  MPI_Status mine;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &mine : status;
  return recorded(
      [&] {
        return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                             comm, st);
      },
      [&] {
        int got = rcount;
        PMPI_Get_count(st, rtype, &got);
        rec::recv("irecv", st->MPI_SOURCE, st->MPI_TAG, got, rtype, comm);
        rec::send("send", dest, stag, scount, stype, comm);
        rec::wait_for(st->MPI_SOURCE, st->MPI_TAG, comm);
      },
      true);
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* req) {
  return recorded([&] { return PMPI_Isend(buf, count, type, dest, tag, comm, req); },
                  [&] {
                    rec::send("isend", dest, tag, count, type, comm);
                    rec::posted(*req, true, dest, tag, comm);
                  },
                  true);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* req) {
  if (rec::on() && (source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG)) {
    rec::unsupported("MPI_Irecv from MPI_ANY_SOURCE or with MPI_ANY_TAG", comm);
  }
  return recorded([&] { return PMPI_Irecv(buf, count, type, source, tag, comm, req); },
                  [&] {
                    rec::recv("irecv", source, tag, count, type, comm);
                    rec::posted(*req, false, source, tag, comm);
                  },
                  true);
}

int MPI_Wait(MPI_Request* req, MPI_Status* status) {
  const MPI_Request r = *req;
  return recorded([&] { return PMPI_Wait(req, status); }, [&] { rec::completed(r); }, true);
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  if (!rec::on()) return PMPI_Waitall(n, reqs, statuses);
  std::vector<MPI_Request> before(reqs, reqs + (n > 0 ? n : 0));
  return recorded([&] { return PMPI_Waitall(n, reqs, statuses); },
                  [&] {
                    for (const MPI_Request r : before) rec::completed(r);
                  },
                  true);
}

int MPI_Test(MPI_Request* req, int* flag, MPI_Status* status) {
  const MPI_Request r = *req;
  return recorded([&] { return PMPI_Test(req, flag, status); },
                  [&] {
                    if (*flag) rec::completed(r);
                  },
                  true);
}

int MPI_Testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  if (!rec::on()) return PMPI_Testall(n, reqs, flag, statuses);
  std::vector<MPI_Request> before(reqs, reqs + (n > 0 ? n : 0));
  return recorded([&] { return PMPI_Testall(n, reqs, flag, statuses); },
                  [&] {
                    if (*flag) {
                      for (const MPI_Request r : before) rec::completed(r);
                    }
                  },
                  true);
}

int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return collective(
      comm, [&] { return PMPI_Bcast(buf, count, type, root, comm); },
      [&] { rec::bcast(count, type, root, comm); });
}

int MPI_Barrier(MPI_Comm comm) {
  return collective(
      comm, [&] { return PMPI_Barrier(comm); }, [&] { rec::barrier(comm); });
}

int MPI_Reduce(const void* s, void* r, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm) {
  return collective(
      comm, [&] { return PMPI_Reduce(s, r, count, type, op, root, comm); },
      [&] { rec::reduce("MPI_Reduce", count, type, root, comm); });
}

int MPI_Allreduce(const void* s, void* r, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return collective(
      comm, [&] { return PMPI_Allreduce(s, r, count, type, op, comm); },
      [&] { rec::reduce("MPI_Allreduce", count, type, -1, comm); });
}

int MPI_Gather(const void* s, int scount, MPI_Datatype stype, void* r, int rcount,
               MPI_Datatype rtype, int root, MPI_Comm comm) {
  return collective(
      comm, [&] { return PMPI_Gather(s, scount, stype, r, rcount, rtype, root, comm); },
      [&] {
        int me = 0;
        PMPI_Comm_rank(comm, &me);
        rec::gather("gather", me == root ? rec::bytes(rcount, rtype) : rec::bytes(scount, stype),
                    root, comm);
      });
}

int MPI_Scatter(const void* s, int scount, MPI_Datatype stype, void* r, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm) {
  return collective(
      comm, [&] { return PMPI_Scatter(s, scount, stype, r, rcount, rtype, root, comm); },
      [&] {
        int me = 0;
        PMPI_Comm_rank(comm, &me);
        rec::gather("scatter", me == root ? rec::bytes(scount, stype) : rec::bytes(rcount, rtype),
                    root, comm);
      });
}

int MPI_Alltoall(const void* s, int scount, MPI_Datatype stype, void* r, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm) {
  return collective(
      comm, [&] { return PMPI_Alltoall(s, scount, stype, r, rcount, rtype, comm); },
      [&] { rec::alltoall(scount, stype, rcount, rtype, comm); });
}

int MPI_Comm_free(MPI_Comm* comm) {
  rec::comm_freed(*comm);
  return PMPI_Comm_free(comm);
}

}  // extern "C"
#pragma GCC visibility pop
