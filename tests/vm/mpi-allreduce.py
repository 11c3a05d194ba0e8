# One MPI job's check, run by mpirun in every rank (tests/vm/clients.sh):
# an allreduce of one integer and one of 2 MiB of doubles; each rank
# prints what it got, and clients.sh checks every rank's line.
from array import array

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
total = comm.allreduce(rank + 1)
count = 262144
send = array('d', [float(rank + 1)]) * count
recv = array('d', [0.0]) * count
comm.Allreduce(send, recv, op=MPI.SUM)
want = size * (size + 1) / 2
right = sum(1 for x in recv if x == want)
print(f"rank {rank} of {size} on {MPI.Get_processor_name()}: "
      f"allreduce {total}, 2 MiB allreduce {right} of {count} right",
      flush=True)
