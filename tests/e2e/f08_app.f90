! An unmodified Fortran MPI program (binding: f08_app), built without colltune: bcast, scatter and
! gather with MPI_IN_PLACE at the root, each checked. Exit status 1 on any bad value.
program f08_app
  use mpi_f08
  implicit none
  integer, parameter :: n = 1000
  integer :: rank, nprocs, ierr, root, i, bad, total
  integer, allocatable :: all(:), mine(:)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  allocate(all(n * nprocs), mine(n))
  bad = 0
  do root = 0, nprocs - 1
    mine = -1
    if (rank == root) mine = [(i + root, i = 1, n)]
    call MPI_Bcast(mine, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    do i = 1, n
      if (mine(i) /= i + root) bad = bad + 1
    end do
    if (rank == root) all = [(i, i = 1, n * nprocs)]
    if (rank == root) then
      call MPI_Scatter(all, n, MPI_INTEGER, MPI_IN_PLACE, n, MPI_INTEGER, root, &
                       MPI_COMM_WORLD, ierr)
    else
      call MPI_Scatter(all, n, MPI_INTEGER, mine, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
      do i = 1, n
        if (mine(i) /= rank * n + i) bad = bad + 1
      end do
    end if
    mine = [(-(rank * n + i), i = 1, n)]
    if (rank == root) then
      all(root * n + 1 : root * n + n) = mine
      call MPI_Gather(MPI_IN_PLACE, n, MPI_INTEGER, all, n, MPI_INTEGER, root, &
                      MPI_COMM_WORLD, ierr)
      do i = 1, n * nprocs
        if (all(i) /= -i) bad = bad + 1
      end do
    else
      call MPI_Gather(mine, n, MPI_INTEGER, all, n, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    end if
  end do
  call MPI_Allreduce(bad, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(A,I0,A,I0)', 'f08_app np=', nprocs, ' bad values=', total
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1
end program f08_app
