// SPDX-License-Identifier: GPL-2.0-or-later
// Frees with the wrong function: delete on new[], free on new, delete[] on
// malloc. Each is a MismatchedFree error; the program goes on.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete" // the point of the test
#include <cstdio>
#include <cstdlib>

int main() {
    int* array = new int[10]; // NEW_ARRAY_HERE
    delete array;             // DELETE_SCALAR_HERE
    int* one = new int(5);
    std::free(one); // FREE_ON_NEW_HERE
    char* raw = static_cast<char*>(std::malloc(16));
    delete[] raw; // DELETE_ARRAY_ON_MALLOC_HERE
    std::puts("still running");
    return 0;
}
