/* Preloaded into MPI tests of the sanitizer build: MPICH and UCX dlclose
 * their plugins at MPI_Finalize, after which LeakSanitizer can neither
 * attribute nor see through the memory those plugins still reference and
 * reports it as leaked from "<unknown module>". Keeping every module loaded
 * leaves that memory reachable, so what LeakSanitizer reports is real and
 * attributable (a leak in dri is still reported, with its stack). */
int dlclose(void* handle);
int dlclose(void* handle) {
    (void)handle;
    return 0;
}
