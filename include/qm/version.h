// The library's version, as the CMake project declares it.
#ifndef QM_VERSION_H_
#define QM_VERSION_H_

#define QM_VERSION_MAJOR 0
#define QM_VERSION_MINOR 1
#define QM_VERSION_PATCH 0
#define QM_VERSION_STRING "0.1.0"

#endif  // QM_VERSION_H_
