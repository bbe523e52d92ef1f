#include "mpi_glue.h"

#include <mpi.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

namespace hcts::ranks {

int rank()
{
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int size()
{
    int s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

void barrier() { MPI_Barrier(MPI_COMM_WORLD); }

void broadcast(void *data, size_t bytes, int root)
{
    MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, root, MPI_COMM_WORLD);
}

bool all(bool mine)
{
    int in = mine ? 1 : 0, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return out != 0;
}

bool any(bool mine)
{
    int in = mine ? 1 : 0, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return out != 0;
}

int max(int mine)
{
    int out = 0;
    MPI_Allreduce(&mine, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return out;
}

std::vector<std::string> gather(const std::string &mine)
{
    const int n = size();
    int len = static_cast<int>(mine.size());
    std::vector<int> lens(static_cast<size_t>(n));
    MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> displs(static_cast<size_t>(n));
    int total = 0;
    for (int i = 0; i < n; ++i) {
        displs[static_cast<size_t>(i)] = total;
        total += lens[static_cast<size_t>(i)];
    }
    std::string all_bytes(rank() == 0 ? static_cast<size_t>(total) : 0, '\0');
    MPI_Gatherv(mine.data(), len, MPI_CHAR, all_bytes.data(), lens.data(), displs.data(), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    std::vector<std::string> out;
    if (rank() == 0)
        for (int i = 0; i < n; ++i)
            out.push_back(all_bytes.substr(static_cast<size_t>(displs[static_cast<size_t>(i)]),
                                           static_cast<size_t>(lens[static_cast<size_t>(i)])));
    return out;
}

std::vector<std::string> hostnames()
{
    char name[HOST_NAME_MAX + 1] = {};
    gethostname(name, sizeof name - 1);
    return gather(name);
}

void abort(int code)
{
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
}

} // namespace hcts::ranks
