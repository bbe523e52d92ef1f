// Two ranks exchange messages of several sizes and check every byte: the MPI program
// that softverbs' UCX and openib ctests run under mpirun (mpi_ucx.sh). Prints
// "mpi_pingpong: ok" on rank 0 when every exchange arrived intact.
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(const unsigned char *buf, int len, int seed)
{
    for (int i = 0; i < len; ++i)
        if (buf[i] != (unsigned char)(i * 31 + seed))
            return i;
    return -1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "mpi_pingpong: needs exactly 2 ranks, got %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    // Eager and rendezvous sizes alike (UCX switches protocol by size).
    static const int sizes[] = {8, 4096, 65536, 1 << 20};
    unsigned char *buf = malloc(1 << 20);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int peer = 1 - rank;
    for (int s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); ++s) {
        for (int iter = 0; iter < 20; ++iter) {
            int len = sizes[s], seed = s * 100 + iter;
            if (rank == 0) {
                for (int i = 0; i < len; ++i)
                    buf[i] = (unsigned char)(i * 31 + seed);
                MPI_Send(buf, len, MPI_BYTE, peer, iter, MPI_COMM_WORLD);
                memset(buf, 0, len);
                MPI_Recv(buf, len, MPI_BYTE, peer, iter, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, len, MPI_BYTE, peer, iter, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            int bad = check(buf, len, seed);
            if (bad >= 0) {
                fprintf(stderr, "mpi_pingpong: rank %d, %d bytes, iteration %d: byte %d is %u, expected %u\n", rank,
                        len, iter, bad, buf[bad], (unsigned char)(bad * 31 + seed));
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            if (rank == 1)
                MPI_Send(buf, len, MPI_BYTE, peer, iter, MPI_COMM_WORLD);
        }
    }
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("mpi_pingpong: ok\n");
    MPI_Finalize();
    return 0;
}
