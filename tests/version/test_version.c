/* The version is one number everywhere (docs/release.md): the headers'
 * DRI_VERSION_* (dri/version.h, generated), the library's DRI_Get_version
 * and CMake's project(), which the build passes as DRI_EXPECTED_VERSION.
 * DRI_Get_version needs neither MPI_Init nor DRI_Init (none is called here)
 * and refuses NULL pointers. */
#include <dri/dri.h>

#include <stdio.h>
#include <string.h>

static int failures = 0;

#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: expectation failed: %s\n", __FILE__, __LINE__, #cond);         \
            ++failures;                                                                            \
        }                                                                                          \
    } while (0)

int main(void) {
    int major = -1, minor = -1, patch = -1;
    char library[64], headers[64];
    EXPECT(DRI_Get_version(&major, &minor, &patch) == DRI_SUCCESS);
    snprintf(library, sizeof library, "%d.%d.%d", major, minor, patch);
    snprintf(headers, sizeof headers, "%d.%d.%d", DRI_VERSION_MAJOR, DRI_VERSION_MINOR,
             DRI_VERSION_PATCH);
    EXPECT(strcmp(library, DRI_EXPECTED_VERSION) == 0);
    EXPECT(strcmp(headers, DRI_EXPECTED_VERSION) == 0);
    EXPECT(strcmp(DRI_VERSION_STRING, DRI_EXPECTED_VERSION) == 0);
    EXPECT(major == DRI_VERSION_MAJOR && minor == DRI_VERSION_MINOR && patch == DRI_VERSION_PATCH);

    /* Each NULL is refused, with a message naming it, and nothing is written. */
    major = minor = patch = -1;
    EXPECT(DRI_Get_version(NULL, &minor, &patch) == DRI_ERR_NULL);
    EXPECT(strstr(DRI_Last_error_message(), "major") != NULL);
    EXPECT(DRI_Get_version(&major, NULL, &patch) == DRI_ERR_NULL);
    EXPECT(strstr(DRI_Last_error_message(), "minor") != NULL);
    EXPECT(DRI_Get_version(&major, &minor, NULL) == DRI_ERR_NULL);
    EXPECT(strstr(DRI_Last_error_message(), "patch") != NULL);
    EXPECT(major == -1 && minor == -1 && patch == -1);

    printf("version: library %s, headers %s (%s), CMake project() %s: %s\n", library, headers,
           DRI_VERSION_STRING, DRI_EXPECTED_VERSION, failures ? "WRONG" : "one number");
    return failures ? 1 : 0;
}
