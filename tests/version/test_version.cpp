// dri::version() (inline over DRI_Get_version, no C++ symbol of its own) is
// CMake's project() version (DRI_EXPECTED_VERSION) and the headers'; it
// holds before dri::init(), inside a session and after dri::finalize().
// dri::Version compares major, then minor, then patch.
#include <dri/dri.hpp>

#include <mpi.h>

#include <cstdio>
#include <string>

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "expectation failed: %s\n", what);
        ++failures;
    }
}

void expect_current(const char* when) {
    const dri::Version v = dri::version();
    const dri::Version headers{DRI_VERSION_MAJOR, DRI_VERSION_MINOR, DRI_VERSION_PATCH};
    expect(v == headers, when);
    expect(v.to_string() == DRI_EXPECTED_VERSION, when);
}

} // namespace

int main(int argc, char** argv) {
    expect_current("before MPI_Init");
    MPI_Init(&argc, &argv);
    expect_current("before dri::init");
    {
        dri::Session session;
        expect_current("in a session");
    }
    expect(!dri::initialized(), "finalized");
    expect_current("after dri::finalize");
    MPI_Finalize();

    using V = dri::Version;
    expect(V{1, 0, 0} < V{1, 0, 1} && V{1, 0, 9} < V{1, 1, 0} && V{1, 9, 9} < V{2, 0, 0},
           "ordered by major, minor, patch");
    expect(V{1, 2, 3} == V{1, 2, 3} && V{1, 2, 3} != V{1, 2, 4}, "equality");
    expect(V{10, 0, 2}.to_string() == "10.0.2", "to_string");
    std::printf("dri::version(): %s: %s\n", dri::version().to_string().c_str(),
                failures ? "WRONG" : "verified");
    return failures ? 1 : 0;
}
