/*
 * dnncompat: the cuDNN 9 API (legacy and graph/backend) on oneDNN.
 *
 * Every type, enum and function here mirrors a cuDNN 9 name with the `cudnn` prefix
 * replaced by `dnncompat`; enum values and status codes equal cuDNN 9's (a test checks them
 * against the CUDA toolkit's cudnn.h). Include <dnncompat/cudnn.h> instead to compile cuDNN
 * source unchanged. Data pointers are host pointers: there is no device memory.
 *
 * Semantics follow the cuDNN 9 API reference for each function; where oneDNN cannot do what was
 * asked, the call either computes the identical result another way and emits a diagnostic
 * (see dnncompatGetLastDiagnostic and DNNCOMPAT_LOG_LEVEL), or returns
 * DNNCOMPAT_STATUS_NOT_SUPPORTED with a reason (dnncompatGetLastErrorString). It never returns a
 * different answer silently. No entry point throws.
 */
#ifndef DNNCOMPAT_DNNCOMPAT_H
#define DNNCOMPAT_DNNCOMPAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every declaration below is part of libdnncompat.so's interface: visible even when the library
 * is compiled with -fvisibility=hidden (as it is), which keeps all else inside. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* Version of the cuDNN API this header mirrors. */
#define DNNCOMPAT_CUDNN_MAJOR 9
#define DNNCOMPAT_CUDNN_MINOR 19
#define DNNCOMPAT_CUDNN_PATCHLEVEL 0
#define DNNCOMPAT_CUDNN_VERSION                                                                                        \
    (DNNCOMPAT_CUDNN_MAJOR * 10000 + DNNCOMPAT_CUDNN_MINOR * 100 + DNNCOMPAT_CUDNN_PATCHLEVEL)

#define DNNCOMPAT_DIM_MAX 8
#define DNNCOMPAT_LRN_MIN_N 1
#define DNNCOMPAT_LRN_MAX_N 16
#define DNNCOMPAT_LRN_MIN_K 1e-5
#define DNNCOMPAT_LRN_MIN_BETA 0.01
#define DNNCOMPAT_BN_MIN_EPSILON 0.0

/* Enum types: C lets a caller pass any int where an enum is expected. In C++ (the library's own
 * code) their underlying type is fixed to int, so such a value (9999, -1) stays a valid value
 * that the library rejects with BAD_PARAM, never undefined behaviour; values and ABI are
 * unchanged. */
#ifdef __cplusplus
#define DNNCOMPAT_ENUM_BASE : int
#else
#define DNNCOMPAT_ENUM_BASE
#endif

typedef struct dnncompatContext *dnncompatHandle_t;
typedef struct dnncompatTensorStruct *dnncompatTensorDescriptor_t;
typedef struct dnncompatFilterStruct *dnncompatFilterDescriptor_t;
typedef struct dnncompatConvolutionStruct *dnncompatConvolutionDescriptor_t;
typedef struct dnncompatActivationStruct *dnncompatActivationDescriptor_t;
typedef struct dnncompatPoolingStruct *dnncompatPoolingDescriptor_t;
typedef struct dnncompatLRNStruct *dnncompatLRNDescriptor_t;
typedef struct dnncompatOpTensorStruct *dnncompatOpTensorDescriptor_t;
typedef struct dnncompatReduceTensorStruct *dnncompatReduceTensorDescriptor_t;
typedef struct dnncompatDropoutStruct *dnncompatDropoutDescriptor_t;
typedef struct dnncompatTensorTransformStruct *dnncompatTensorTransformDescriptor_t;
typedef struct dnncompatSpatialTransformerStruct *dnncompatSpatialTransformerDescriptor_t;
/* A CUDA stream stands in as an opaque value: it is stored and returned, never used. */
typedef struct dnncompatStreamOpaque *dnncompatStream_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_STATUS_SUCCESS = 0,
    DNNCOMPAT_STATUS_NOT_INITIALIZED = 1001,
    DNNCOMPAT_STATUS_SUBLIBRARY_VERSION_MISMATCH = 1002,
    DNNCOMPAT_STATUS_SERIALIZATION_VERSION_MISMATCH = 1003,
    DNNCOMPAT_STATUS_DEPRECATED = 1004,
    DNNCOMPAT_STATUS_LICENSE_ERROR = 1005,
    DNNCOMPAT_STATUS_RUNTIME_IN_PROGRESS = 1006,
    DNNCOMPAT_STATUS_RUNTIME_FP_OVERFLOW = 1007,
    DNNCOMPAT_STATUS_SUBLIBRARY_LOADING_FAILED = 1008,
    DNNCOMPAT_STATUS_BAD_PARAM = 2000,
    DNNCOMPAT_STATUS_BAD_PARAM_NULL_POINTER = 2002,
    DNNCOMPAT_STATUS_BAD_PARAM_MISALIGNED_POINTER = 2003,
    DNNCOMPAT_STATUS_BAD_PARAM_NOT_FINALIZED = 2004,
    DNNCOMPAT_STATUS_BAD_PARAM_OUT_OF_BOUND = 2005,
    DNNCOMPAT_STATUS_BAD_PARAM_SIZE_INSUFFICIENT = 2006,
    DNNCOMPAT_STATUS_BAD_PARAM_STREAM_MISMATCH = 2007,
    DNNCOMPAT_STATUS_BAD_PARAM_SHAPE_MISMATCH = 2008,
    DNNCOMPAT_STATUS_BAD_PARAM_DUPLICATED_ENTRIES = 2009,
    DNNCOMPAT_STATUS_BAD_PARAM_ATTRIBUTE_TYPE = 2010,
    DNNCOMPAT_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH = 2011,
    DNNCOMPAT_STATUS_BAD_PARAM_DESCRIPTOR_TYPE = 2012,
    DNNCOMPAT_STATUS_NOT_SUPPORTED = 3000,
    DNNCOMPAT_STATUS_NOT_SUPPORTED_GRAPH_PATTERN = 3001,
    DNNCOMPAT_STATUS_NOT_SUPPORTED_SHAPE = 3002,
    DNNCOMPAT_STATUS_NOT_SUPPORTED_DATA_TYPE = 3003,
    DNNCOMPAT_STATUS_NOT_SUPPORTED_LAYOUT = 3004,
    DNNCOMPAT_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER = 3005,
    DNNCOMPAT_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART = 3006,
    DNNCOMPAT_STATUS_NOT_SUPPORTED_ARCH_MISMATCH = 3007,
    DNNCOMPAT_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING = 3008,
    DNNCOMPAT_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE = 3009,
    DNNCOMPAT_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT = 3010,
    DNNCOMPAT_STATUS_NOT_SUPPORTED_PADDING = 3011,
    DNNCOMPAT_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM = 3012,
    DNNCOMPAT_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API = 3013,
    DNNCOMPAT_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE = 3014,
    DNNCOMPAT_STATUS_INTERNAL_ERROR = 4000,
    DNNCOMPAT_STATUS_INTERNAL_ERROR_COMPILATION_FAILED = 4001,
    DNNCOMPAT_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE = 4002,
    DNNCOMPAT_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED = 4003,
    DNNCOMPAT_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED = 4004,
    DNNCOMPAT_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM = 4005,
    DNNCOMPAT_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED = 4006,
    DNNCOMPAT_STATUS_EXECUTION_FAILED = 5000,
    DNNCOMPAT_STATUS_EXECUTION_FAILED_CUDA_DRIVER = 5001,
    DNNCOMPAT_STATUS_EXECUTION_FAILED_CUBLAS = 5002,
    DNNCOMPAT_STATUS_EXECUTION_FAILED_CUDART = 5003,
    DNNCOMPAT_STATUS_EXECUTION_FAILED_CURAND = 5004,
    DNNCOMPAT_STATUS_ALLOC_FAILED = 4003,
    DNNCOMPAT_STATUS_INVALID_VALUE = 2001,
    DNNCOMPAT_STATUS_ARCH_MISMATCH = 3007,
    DNNCOMPAT_STATUS_MAPPING_ERROR = 4006,
    DNNCOMPAT_STATUS_RUNTIME_PREREQUISITE_MISSING = 3008,
    DNNCOMPAT_STATUS_VERSION_MISMATCH = 1002,
} dnncompatStatus_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_ERRQUERY_RAWCODE = 0,
    DNNCOMPAT_ERRQUERY_NONBLOCKING = 1,
    DNNCOMPAT_ERRQUERY_BLOCKING = 2,
} dnncompatErrQueryMode_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_DATA_FLOAT = 0,
    DNNCOMPAT_DATA_DOUBLE = 1,
    DNNCOMPAT_DATA_HALF = 2,
    DNNCOMPAT_DATA_INT8 = 3,
    DNNCOMPAT_DATA_INT32 = 4,
    DNNCOMPAT_DATA_INT8x4 = 5,
    DNNCOMPAT_DATA_UINT8 = 6,
    DNNCOMPAT_DATA_UINT8x4 = 7,
    DNNCOMPAT_DATA_INT8x32 = 8,
    DNNCOMPAT_DATA_BFLOAT16 = 9,
    DNNCOMPAT_DATA_INT64 = 10,
    DNNCOMPAT_DATA_BOOLEAN = 11,
    DNNCOMPAT_DATA_FP8_E4M3 = 12,
    DNNCOMPAT_DATA_FP8_E5M2 = 13,
    DNNCOMPAT_DATA_FAST_FLOAT_FOR_FP8 = 14,
    DNNCOMPAT_DATA_FP8_E8M0 = 15,
    DNNCOMPAT_DATA_FP4_E2M1 = 16,
    DNNCOMPAT_DATA_INT4 = 17,
    DNNCOMPAT_DATA_UINT4 = 18,
    DNNCOMPAT_DATA_UINT32 = 19,
    DNNCOMPAT_DATA_COMPLEX_FP32 = 20,
    DNNCOMPAT_DATA_COMPLEX_FP64 = 21,
} dnncompatDataType_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_DEFAULT_MATH = 0,
    DNNCOMPAT_TENSOR_OP_MATH = 1,
    DNNCOMPAT_TENSOR_OP_MATH_ALLOW_CONVERSION = 2,
    DNNCOMPAT_FMA_MATH = 3,
} dnncompatMathType_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_NOT_PROPAGATE_NAN = 0,
    DNNCOMPAT_PROPAGATE_NAN = 1,
} dnncompatNanPropagation_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_TENSOR_NCHW = 0,
    DNNCOMPAT_TENSOR_NHWC = 1,
    DNNCOMPAT_TENSOR_NCHW_VECT_C = 2,
} dnncompatTensorFormat_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_REDUCE_TENSOR_ADD = 0,
    DNNCOMPAT_REDUCE_TENSOR_MUL = 1,
    DNNCOMPAT_REDUCE_TENSOR_MIN = 2,
    DNNCOMPAT_REDUCE_TENSOR_MAX = 3,
    DNNCOMPAT_REDUCE_TENSOR_AMAX = 4,
    DNNCOMPAT_REDUCE_TENSOR_AVG = 5,
    DNNCOMPAT_REDUCE_TENSOR_NORM1 = 6,
    DNNCOMPAT_REDUCE_TENSOR_NORM2 = 7,
    DNNCOMPAT_REDUCE_TENSOR_MUL_NO_ZEROS = 8,
} dnncompatReduceTensorOp_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_ACTIVATION_SIGMOID = 0,
    DNNCOMPAT_ACTIVATION_RELU = 1,
    DNNCOMPAT_ACTIVATION_TANH = 2,
    DNNCOMPAT_ACTIVATION_CLIPPED_RELU = 3,
    DNNCOMPAT_ACTIVATION_ELU = 4,
    DNNCOMPAT_ACTIVATION_IDENTITY = 5,
    DNNCOMPAT_ACTIVATION_SWISH = 6,
} dnncompatActivationMode_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_SEV_FATAL = 0,
    DNNCOMPAT_SEV_ERROR = 1,
    DNNCOMPAT_SEV_WARNING = 2,
    DNNCOMPAT_SEV_INFO = 3,
} dnncompatSeverity_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_CONVOLUTION = 0,
    DNNCOMPAT_CROSS_CORRELATION = 1,
} dnncompatConvolutionMode_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_DEFAULT_REORDER = 0,
    DNNCOMPAT_NO_REORDER = 1,
} dnncompatReorderType_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_NON_DETERMINISTIC = 0,
    DNNCOMPAT_DETERMINISTIC = 1,
} dnncompatDeterminism_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_TRANSFORM_FOLD = 0,
    DNNCOMPAT_TRANSFORM_UNFOLD = 1,
} dnncompatFoldingDirection_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_OP_TENSOR_ADD = 0,
    DNNCOMPAT_OP_TENSOR_MUL = 1,
    DNNCOMPAT_OP_TENSOR_MIN = 2,
    DNNCOMPAT_OP_TENSOR_MAX = 3,
    DNNCOMPAT_OP_TENSOR_SQRT = 4,
    DNNCOMPAT_OP_TENSOR_NOT = 5,
} dnncompatOpTensorOp_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_REDUCE_TENSOR_NO_INDICES = 0,
    DNNCOMPAT_REDUCE_TENSOR_FLATTENED_INDICES = 1,
} dnncompatReduceTensorIndices_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_32BIT_INDICES = 0,
    DNNCOMPAT_64BIT_INDICES = 1,
    DNNCOMPAT_16BIT_INDICES = 2,
    DNNCOMPAT_8BIT_INDICES = 3,
} dnncompatIndicesType_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_SOFTMAX_FAST = 0,
    DNNCOMPAT_SOFTMAX_ACCURATE = 1,
    DNNCOMPAT_SOFTMAX_LOG = 2,
} dnncompatSoftmaxAlgorithm_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_SOFTMAX_MODE_INSTANCE = 0,
    DNNCOMPAT_SOFTMAX_MODE_CHANNEL = 1,
} dnncompatSoftmaxMode_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_POOLING_MAX = 0,
    DNNCOMPAT_POOLING_AVERAGE_COUNT_INCLUDE_PADDING = 1,
    DNNCOMPAT_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING = 2,
    DNNCOMPAT_POOLING_MAX_DETERMINISTIC = 3,
} dnncompatPoolingMode_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_LRN_CROSS_CHANNEL_DIM1 = 0,
} dnncompatLRNMode_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_DIVNORM_PRECOMPUTED_MEANS = 0,
} dnncompatDivNormMode_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_BATCHNORM_PER_ACTIVATION = 0,
    DNNCOMPAT_BATCHNORM_SPATIAL = 1,
    DNNCOMPAT_BATCHNORM_SPATIAL_PERSISTENT = 2,
} dnncompatBatchNormMode_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_BATCHNORM_OPS_BN = 0,
    DNNCOMPAT_BATCHNORM_OPS_BN_ACTIVATION = 1,
    DNNCOMPAT_BATCHNORM_OPS_BN_ADD_ACTIVATION = 2,
} dnncompatBatchNormOps_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_NORM_PER_ACTIVATION = 0,
    DNNCOMPAT_NORM_PER_CHANNEL = 1,
} dnncompatNormMode_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_NORM_ALGO_STANDARD = 0,
    DNNCOMPAT_NORM_ALGO_PERSIST = 1,
} dnncompatNormAlgo_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_NORM_OPS_NORM = 0,
    DNNCOMPAT_NORM_OPS_NORM_ACTIVATION = 1,
    DNNCOMPAT_NORM_OPS_NORM_ADD_ACTIVATION = 2,
} dnncompatNormOps_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_SAMPLER_BILINEAR = 0,
} dnncompatSamplerType_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM = 0,
    DNNCOMPAT_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM = 1,
    DNNCOMPAT_CONVOLUTION_FWD_ALGO_GEMM = 2,
    DNNCOMPAT_CONVOLUTION_FWD_ALGO_DIRECT = 3,
    DNNCOMPAT_CONVOLUTION_FWD_ALGO_FFT = 4,
    DNNCOMPAT_CONVOLUTION_FWD_ALGO_FFT_TILING = 5,
    DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD = 6,
    DNNCOMPAT_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED = 7,
    DNNCOMPAT_CONVOLUTION_FWD_ALGO_COUNT = 8,
} dnncompatConvolutionFwdAlgo_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_0 = 0,
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1 = 1,
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_FFT = 2,
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_3 = 3,
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD = 4,
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED = 5,
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING = 6,
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_COUNT = 7,
} dnncompatConvolutionBwdFilterAlgo_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_0 = 0,
    DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_1 = 1,
    DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_FFT = 2,
    DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING = 3,
    DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD = 4,
    DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED = 5,
    DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_COUNT = 6,
} dnncompatConvolutionBwdDataAlgo_t;

/* As cudnnConvolutionFwdAlgoPerf_t (cuDNN 9 API reference); time in ms, memory in bytes. */
typedef struct dnncompatConvolutionFwdAlgoPerfStruct {
    dnncompatConvolutionFwdAlgo_t algo;
    dnncompatStatus_t status;
    float time;
    size_t memory;
    dnncompatDeterminism_t determinism;
    dnncompatMathType_t mathType;
    int reserved[3];
} dnncompatConvolutionFwdAlgoPerf_t;

/* As cudnnConvolutionBwdDataAlgoPerf_t. */
typedef struct dnncompatConvolutionBwdDataAlgoPerfStruct {
    dnncompatConvolutionBwdDataAlgo_t algo;
    dnncompatStatus_t status;
    float time;
    size_t memory;
    dnncompatDeterminism_t determinism;
    dnncompatMathType_t mathType;
    int reserved[3];
} dnncompatConvolutionBwdDataAlgoPerf_t;

/* As cudnnConvolutionBwdFilterAlgoPerf_t. */
typedef struct dnncompatConvolutionBwdFilterAlgoPerfStruct {
    dnncompatConvolutionBwdFilterAlgo_t algo;
    dnncompatStatus_t status;
    float time;
    size_t memory;
    dnncompatDeterminism_t determinism;
    dnncompatMathType_t mathType;
    int reserved[3];
} dnncompatConvolutionBwdFilterAlgoPerf_t;

/* ------------------------------------------------------------------------------------------ */
/* Library, handle, errors                                                                    */
/* ------------------------------------------------------------------------------------------ */

/* As cudnnGetVersion: the cuDNN version whose API this library implements (91900). */
size_t dnncompatGetVersion(void);

/* As cudnnGetProperty (cuDNN 9 API reference; the type is CUDA's libraryPropertyType from
 * library_types.h): *value = the major (MAJOR_VERSION = 0), minor (MINOR_VERSION = 1) or patch
 * (PATCH_LEVEL = 2) number of the cuDNN version this library implements, 9, 19 and 0 (as
 * dnncompatGetVersion). PyTorch's graph-API path asks for all three at start-up. Returns
 * BAD_PARAM for a null value or any other type (*value is then left as it was). */
dnncompatStatus_t dnncompatGetProperty(int type, int *value);

/* As cudnnGetErrorString: a static, never-null string naming the status with cuDNN's spelling
 * ("CUDNN_STATUS_BAD_PARAM"); unknown values give "CUDNN_STATUS_UNKNOWN". */
const char *dnncompatGetErrorString(dnncompatStatus_t status);

/* As cudnnGetLastErrorString (cuDNN 9): copies the reason for the calling thread's most recent
 * failed call, NUL-terminated and truncated to max_size bytes, then clears it. Empty when none. */
void dnncompatGetLastErrorString(char *message, size_t max_size);

/* As cudnnCreate. Returns BAD_PARAM for a null handle pointer, ALLOC_FAILED when oneDNN's CPU
 * engine cannot be created. */
dnncompatStatus_t dnncompatCreate(dnncompatHandle_t *handle);
/* As cudnnDestroy. BAD_PARAM for a null or already destroyed handle. */
dnncompatStatus_t dnncompatDestroy(dnncompatHandle_t handle);
/* As cudnnSetStream / cudnnGetStream: the stream is stored and returned; work runs on the
 * calling thread and is complete when the call returns. BAD_PARAM for an invalid handle. */
dnncompatStatus_t dnncompatSetStream(dnncompatHandle_t handle, dnncompatStream_t streamId);
dnncompatStatus_t dnncompatGetStream(dnncompatHandle_t handle, dnncompatStream_t *streamId);

/* ------------------------------------------------------------------------------------------ */
/* Tensor descriptors (as cudnn_ops.h). Dimensions are N, C, then spatial (D,) H, W; strides   */
/* in elements. Every setter returns BAD_PARAM for a dimension or stride below 1, nbDims out   */
/* of [3, DNNCOMPAT_DIM_MAX] (4d: exactly 4), an unknown data type or format, or an element     */
/* count whose byte size overflows 64 bits; the descriptor is unchanged on failure.            */
/* Sizes are computed in 64 bits: unlike cuDNN, whose API reference limits a tensor to 2       */
/* Giga-elements (NOT_SUPPORTED beyond), larger tensors are accepted and sized exactly. A      */
/* query that returns a value in an int (Get4d / GetNd strides, output dimensions) returns     */
/* NOT_SUPPORTED, writing nothing, when that value exceeds INT_MAX (e.g. N's stride of an      */
/* N x 65536 x 65536 x 1 tensor); dnncompatGetTensorSizeInBytes is exact in size_t.           */
/* NCHW_VECT_C (format-taking setters): INT8x4 / UINT8x4 / INT8x32 only and C a multiple of    */
/* the vector width (4 or 32), else BAD_PARAM; dims count channels, memory is                   */
/* [N][C/v][spatial][v] and the reported strides are those of [N, C/v, spatial] in vectors.     */
/* ------------------------------------------------------------------------------------------ */

dnncompatStatus_t dnncompatCreateTensorDescriptor(dnncompatTensorDescriptor_t *tensorDesc);
dnncompatStatus_t dnncompatSetTensor4dDescriptor(dnncompatTensorDescriptor_t tensorDesc, dnncompatTensorFormat_t format,
                                                 dnncompatDataType_t dataType, int n, int c, int h, int w);
dnncompatStatus_t dnncompatSetTensor4dDescriptorEx(dnncompatTensorDescriptor_t tensorDesc, dnncompatDataType_t dataType,
                                                   int n, int c, int h, int w, int nStride, int cStride, int hStride,
                                                   int wStride);
dnncompatStatus_t dnncompatGetTensor4dDescriptor(const dnncompatTensorDescriptor_t tensorDesc,
                                                 dnncompatDataType_t *dataType, int *n, int *c, int *h, int *w,
                                                 int *nStride, int *cStride, int *hStride, int *wStride);
dnncompatStatus_t dnncompatSetTensorNdDescriptor(dnncompatTensorDescriptor_t tensorDesc, dnncompatDataType_t dataType,
                                                 int nbDims, const int dimA[], const int strideA[]);
dnncompatStatus_t dnncompatSetTensorNdDescriptorEx(dnncompatTensorDescriptor_t tensorDesc,
                                                   dnncompatTensorFormat_t format, dnncompatDataType_t dataType,
                                                   int nbDims, const int dimA[]);
/* As cudnnGetTensorNdDescriptor: writes min(nbDimsRequested, nbDims) dims and strides. */
dnncompatStatus_t dnncompatGetTensorNdDescriptor(const dnncompatTensorDescriptor_t tensorDesc, int nbDimsRequested,
                                                 dnncompatDataType_t *dataType, int *nbDims, int dimA[], int strideA[]);
/* As cudnnGetTensorSizeInBytes: bytes spanned by the strided tensor (NCHW_VECT_C: counted in
 * vectors of 4 or 32 bytes). */
dnncompatStatus_t dnncompatGetTensorSizeInBytes(const dnncompatTensorDescriptor_t tensorDesc, size_t *size);
dnncompatStatus_t dnncompatDestroyTensorDescriptor(dnncompatTensorDescriptor_t tensorDesc);

/* ------------------------------------------------------------------------------------------ */
/* Filter descriptors: K, C/groups, then spatial (R, S); format NCHW means KCRS packed,        */
/* NHWC means KRSC packed, NCHW_VECT_C (INT8x4 / UINT8x4 / INT8x32 only, else BAD_PARAM)     */
/* means [K][C/v][R][S][v]; as in cuDNN, a C that is not a multiple of v is accepted here      */
/* (sized rounded down) and refused by the convolution.                                       */
/* ------------------------------------------------------------------------------------------ */

dnncompatStatus_t dnncompatCreateFilterDescriptor(dnncompatFilterDescriptor_t *filterDesc);
dnncompatStatus_t dnncompatSetFilter4dDescriptor(dnncompatFilterDescriptor_t filterDesc, dnncompatDataType_t dataType,
                                                 dnncompatTensorFormat_t format, int k, int c, int h, int w);
dnncompatStatus_t dnncompatGetFilter4dDescriptor(const dnncompatFilterDescriptor_t filterDesc,
                                                 dnncompatDataType_t *dataType, dnncompatTensorFormat_t *format, int *k,
                                                 int *c, int *h, int *w);
dnncompatStatus_t dnncompatSetFilterNdDescriptor(dnncompatFilterDescriptor_t filterDesc, dnncompatDataType_t dataType,
                                                 dnncompatTensorFormat_t format, int nbDims, const int filterDimA[]);
dnncompatStatus_t dnncompatGetFilterNdDescriptor(const dnncompatFilterDescriptor_t filterDesc, int nbDimsRequested,
                                                 dnncompatDataType_t *dataType, dnncompatTensorFormat_t *format,
                                                 int *nbDims, int filterDimA[]);
/* As cudnnGetFilterSizeInBytes (NCHW_VECT_C: K * floor(C / v) * R * S vectors). */
dnncompatStatus_t dnncompatGetFilterSizeInBytes(const dnncompatFilterDescriptor_t filterDesc, size_t *size);
dnncompatStatus_t dnncompatDestroyFilterDescriptor(dnncompatFilterDescriptor_t filterDesc);

/* ------------------------------------------------------------------------------------------ */
/* Convolution descriptors. Dilation counts as cuDNN counts it: 1 = dense (oneDNN's 0).        */
/* Setters return BAD_PARAM for a pad below 0, stride or dilation below 1, arrayLength out of   */
/* [1, DNNCOMPAT_DIM_MAX - 2], a group count below 1, or an unknown mode, type or math type.   */
/* ------------------------------------------------------------------------------------------ */

dnncompatStatus_t dnncompatCreateConvolutionDescriptor(dnncompatConvolutionDescriptor_t *convDesc);
dnncompatStatus_t dnncompatSetConvolution2dDescriptor(dnncompatConvolutionDescriptor_t convDesc, int pad_h, int pad_w,
                                                      int u, int v, int dilation_h, int dilation_w,
                                                      dnncompatConvolutionMode_t mode, dnncompatDataType_t computeType);
dnncompatStatus_t dnncompatGetConvolution2dDescriptor(const dnncompatConvolutionDescriptor_t convDesc, int *pad_h,
                                                      int *pad_w, int *u, int *v, int *dilation_h, int *dilation_w,
                                                      dnncompatConvolutionMode_t *mode,
                                                      dnncompatDataType_t *computeType);
dnncompatStatus_t dnncompatSetConvolutionNdDescriptor(dnncompatConvolutionDescriptor_t convDesc, int arrayLength,
                                                      const int padA[], const int filterStrideA[],
                                                      const int dilationA[], dnncompatConvolutionMode_t mode,
                                                      dnncompatDataType_t computeType);
dnncompatStatus_t dnncompatGetConvolutionNdDescriptor(const dnncompatConvolutionDescriptor_t convDesc,
                                                      int arrayLengthRequested, int *arrayLength, int padA[],
                                                      int strideA[], int dilationA[], dnncompatConvolutionMode_t *mode,
                                                      dnncompatDataType_t *computeType);
dnncompatStatus_t dnncompatSetConvolutionGroupCount(dnncompatConvolutionDescriptor_t convDesc, int groupCount);
dnncompatStatus_t dnncompatGetConvolutionGroupCount(dnncompatConvolutionDescriptor_t convDesc, int *groupCount);
/* Math type is recorded; every math type computes in FP32 FMA on the CPU (TENSOR_OP math's
 * permission to down-convert is never used, so results are at least as precise). */
dnncompatStatus_t dnncompatSetConvolutionMathType(dnncompatConvolutionDescriptor_t convDesc,
                                                  dnncompatMathType_t mathType);
dnncompatStatus_t dnncompatGetConvolutionMathType(dnncompatConvolutionDescriptor_t convDesc,
                                                  dnncompatMathType_t *mathType);
dnncompatStatus_t dnncompatSetConvolutionReorderType(dnncompatConvolutionDescriptor_t convDesc,
                                                     dnncompatReorderType_t reorderType);
dnncompatStatus_t dnncompatGetConvolutionReorderType(dnncompatConvolutionDescriptor_t convDesc,
                                                     dnncompatReorderType_t *reorderType);
/* As cudnnGetConvolution2dForwardOutputDim / NdForwardOutputDim: per spatial dim
 * 1 + (in + 2*pad - ((filter-1)*dilation + 1)) / stride (floor), computed in 64 bits. BAD_PARAM
 * when the input and filter disagree (C not a multiple of the filter's C, ranks differ), nbDims
 * is not the input's rank, or an output dim < 1; NOT_SUPPORTED when an output dim exceeds
 * INT_MAX (a huge pad), nothing written. */
dnncompatStatus_t dnncompatGetConvolution2dForwardOutputDim(const dnncompatConvolutionDescriptor_t convDesc,
                                                            const dnncompatTensorDescriptor_t inputTensorDesc,
                                                            const dnncompatFilterDescriptor_t filterDesc, int *n,
                                                            int *c, int *h, int *w);
dnncompatStatus_t dnncompatGetConvolutionNdForwardOutputDim(const dnncompatConvolutionDescriptor_t convDesc,
                                                            const dnncompatTensorDescriptor_t inputTensorDesc,
                                                            const dnncompatFilterDescriptor_t filterDesc, int nbDims,
                                                            int tensorOuputDimA[]);
dnncompatStatus_t dnncompatDestroyConvolutionDescriptor(dnncompatConvolutionDescriptor_t convDesc);

/* ------------------------------------------------------------------------------------------ */
/* Convolution forward                                                                          */
/* ------------------------------------------------------------------------------------------ */

/* As cudnnGetConvolutionForwardAlgorithmMaxCount: DNNCOMPAT_CONVOLUTION_FWD_ALGO_COUNT. */
dnncompatStatus_t dnncompatGetConvolutionForwardAlgorithmMaxCount(dnncompatHandle_t handle, int *count);
/* As cudnnGetConvolutionForwardAlgorithm_v7: up to requestedAlgoCount entries, best first,
 * one per algorithm enum. Entries that run here have status SUCCESS, memory = the workspace
 * dnncompatGetConvolutionForwardWorkspaceSize returns for that algorithm, time = -1 (not
 * measured); algorithms that cannot run (FFT, FFT_TILING) come last with NOT_SUPPORTED.
 * BAD_PARAM for invalid or mismatched descriptors or requestedAlgoCount < 1. */
dnncompatStatus_t dnncompatGetConvolutionForwardAlgorithm_v7(
    dnncompatHandle_t handle, const dnncompatTensorDescriptor_t srcDesc, const dnncompatFilterDescriptor_t filterDesc,
    const dnncompatConvolutionDescriptor_t convDesc, const dnncompatTensorDescriptor_t destDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, dnncompatConvolutionFwdAlgoPerf_t *perfResults);
/* As cudnnGetConvolutionForwardWorkspaceSize: bytes of workspace ConvolutionForward needs with
 * this algorithm (oneDNN's scratchpad of the implementation that will run, plus the flipped
 * filter for CONVOLUTION mode). BAD_PARAM for invalid or mismatched descriptors;
 * NOT_SUPPORTED for an algorithm that cannot run here (FFT, FFT_TILING). */
dnncompatStatus_t dnncompatGetConvolutionForwardWorkspaceSize(dnncompatHandle_t handle,
                                                              const dnncompatTensorDescriptor_t xDesc,
                                                              const dnncompatFilterDescriptor_t wDesc,
                                                              const dnncompatConvolutionDescriptor_t convDesc,
                                                              const dnncompatTensorDescriptor_t yDesc,
                                                              dnncompatConvolutionFwdAlgo_t algo, size_t *sizeInBytes);
/* As cudnnConvolutionForward: y = alpha * conv(x, w) + beta * y (y is not read when beta = 0).
 * x: [N, C, spatial...], w: [K, C/groups, filter spatial...], y: [N, K, out spatial...], any
 * strides the descriptors give. alpha/beta point to float (double for DOUBLE data).
 * BAD_PARAM: null pointers, invalid or mismatched descriptors, y's shape not the computed one,
 * workSpaceSizeInBytes below what dnncompatGetConvolutionForwardWorkspaceSize returns.
 * NOT_SUPPORTED: an algorithm or data type with no equivalent result here. An algorithm oneDNN
 * lacks but can replace with an identical result runs the replacement and emits a diagnostic.
 * Integer configurations (compute type INT32, IMPLICIT_GEMM / IMPLICIT_PRECOMP_GEMM only, else
 * NOT_SUPPORTED): x INT8 or UINT8, w INT8, y INT8 or FLOAT, all NHWC; x INT8x4 or UINT8x4, w
 * INT8x4, y INT8x4 or FLOAT; x, w, y INT8x32 (vectorised types in NCHW_VECT_C, 2-d, no
 * dilation). Exact integer accumulation; y = alpha * acc + beta * y, rounded to nearest even and
 * saturated for INT8 y. */
dnncompatStatus_t dnncompatConvolutionForward(dnncompatHandle_t handle, const void *alpha,
                                              const dnncompatTensorDescriptor_t xDesc, const void *x,
                                              const dnncompatFilterDescriptor_t wDesc, const void *w,
                                              const dnncompatConvolutionDescriptor_t convDesc,
                                              dnncompatConvolutionFwdAlgo_t algo, void *workSpace,
                                              size_t workSpaceSizeInBytes, const void *beta,
                                              const dnncompatTensorDescriptor_t yDesc, void *y);

/* ------------------------------------------------------------------------------------------ */
/* Batch normalization                                                                          */
/* ------------------------------------------------------------------------------------------ */

/* As cudnnDeriveBNTensorDescriptor: 1xCx1x1 (SPATIAL) or 1xCxHxW (PER_ACTIVATION) of x's rank. */
dnncompatStatus_t dnncompatDeriveBNTensorDescriptor(dnncompatTensorDescriptor_t derivedBnDesc,
                                                    const dnncompatTensorDescriptor_t xDesc,
                                                    dnncompatBatchNormMode_t mode);
/* As cudnnBatchNormalizationForwardInference:
 * y = alpha * (scale * (x - mean) / sqrt(var + epsilon) + bias) + beta * y, with scale, bias,
 * mean and var shaped as dnncompatDeriveBNTensorDescriptor gives for the mode (FLOAT, also for
 * HALF / BFLOAT16 x and y, which are computed in FP32 and rounded once). BAD_PARAM for null
 * pointers, mismatched descriptors, epsilon < DNNCOMPAT_BN_MIN_EPSILON or an unknown mode. */
dnncompatStatus_t dnncompatBatchNormalizationForwardInference(
    dnncompatHandle_t handle, dnncompatBatchNormMode_t mode, const void *alpha, const void *beta,
    const dnncompatTensorDescriptor_t xDesc, const void *x, const dnncompatTensorDescriptor_t yDesc, void *y,
    const dnncompatTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    const void *estimatedMean, const void *estimatedVariance, double epsilon);

/* ------------------------------------------------------------------------------------------ */
/* Convolution backward data / filter / bias, bias-activation, Find (as cudnn_cnn.h)          */
/* ------------------------------------------------------------------------------------------ */

/* Common to this section: x / dx are [N, C, spatial...], w / dw [K, C/groups, filter spatial...]
 * (NCHW = KCRS or NHWC = KRSC packed), y / dy [N, K, out spatial...], 2-d and 3-d, any tensor
 * strides; dx / dw hold the gradient of the convolution that cudnnConvolutionForward computes with
 * the same descriptors (CONVOLUTION mode flips the filter). alpha/beta point to float; the output
 * is not read when beta = 0. Every call returns BAD_PARAM for a null handle, pointer or
 * descriptor, an unset or destroyed descriptor, shapes that do not form the convolution, an
 * algorithm outside its enum, or workSpaceSizeInBytes below what the matching *WorkspaceSize
 * query returns; NOT_SUPPORTED for data types dnncompat does not compute (dnncompatGetLastErrorString
 * says why). An algorithm oneDNN lacks (FFT, FFT_TILING; Winograd where oneDNN's does not apply)
 * runs the direct algorithm instead, with a diagnostic (DNNC-CONV-BWD-*-ALGO-*). */

/* As cudnnGetConvolutionBackwardDataAlgorithmMaxCount: DNNCOMPAT_CONVOLUTION_BWD_DATA_ALGO_COUNT. */
dnncompatStatus_t dnncompatGetConvolutionBackwardDataAlgorithmMaxCount(dnncompatHandle_t handle, int *count);
/* As cudnnGetConvolutionBackwardDataAlgorithm_v7: up to requestedAlgoCount entries, one per
 * algorithm; those that run natively first (status SUCCESS), then those that would run only
 * through a fallback (NOT_SUPPORTED). time = -1 (not measured), memory = workspace bytes,
 * determinism DETERMINISTIC. BAD_PARAM also for requestedAlgoCount < 1. */
dnncompatStatus_t dnncompatGetConvolutionBackwardDataAlgorithm_v7(
    dnncompatHandle_t handle, const dnncompatFilterDescriptor_t filterDesc, const dnncompatTensorDescriptor_t diffDesc,
    const dnncompatConvolutionDescriptor_t convDesc, const dnncompatTensorDescriptor_t gradDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, dnncompatConvolutionBwdDataAlgoPerf_t *perfResults);
/* As cudnnFindConvolutionBackwardDataAlgorithm: like _v7, but each natively running algorithm is
 * run (one warm-up, then the median of 3 timed runs, time in ms) on buffers the call allocates;
 * entries sorted by time, the ones that did not run last (ALLOC_FAILED, then NOT_SUPPORTED). */
dnncompatStatus_t dnncompatFindConvolutionBackwardDataAlgorithm(
    dnncompatHandle_t handle, const dnncompatFilterDescriptor_t wDesc, const dnncompatTensorDescriptor_t dyDesc,
    const dnncompatConvolutionDescriptor_t convDesc, const dnncompatTensorDescriptor_t dxDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, dnncompatConvolutionBwdDataAlgoPerf_t *perfResults);
/* As cudnnFindConvolutionBackwardDataAlgorithmEx: as the non-Ex form, on the caller's w, dy, dx
 * and workspace (null counts as 0 bytes). An algorithm needing more workspace is not run and
 * reported ALLOC_FAILED. dx is overwritten; it ends holding the fastest algorithm's result. */
dnncompatStatus_t dnncompatFindConvolutionBackwardDataAlgorithmEx(
    dnncompatHandle_t handle, const dnncompatFilterDescriptor_t wDesc, const void *w,
    const dnncompatTensorDescriptor_t dyDesc, const void *dy, const dnncompatConvolutionDescriptor_t convDesc,
    const dnncompatTensorDescriptor_t dxDesc, void *dx, const int requestedAlgoCount, int *returnedAlgoCount,
    dnncompatConvolutionBwdDataAlgoPerf_t *perfResults, void *workSpace, size_t workSpaceSizeInBytes);
/* As cudnnGetConvolutionBackwardDataWorkspaceSize: bytes dnncompatConvolutionBackwardData needs
 * with this algorithm, for every alpha and beta (oneDNN's scratchpad, the flipped filter in
 * CONVOLUTION mode, layout copies where the caller's layout has no fast kernel). */
dnncompatStatus_t dnncompatGetConvolutionBackwardDataWorkspaceSize(
    dnncompatHandle_t handle, const dnncompatFilterDescriptor_t wDesc, const dnncompatTensorDescriptor_t dyDesc,
    const dnncompatConvolutionDescriptor_t convDesc, const dnncompatTensorDescriptor_t dxDesc,
    dnncompatConvolutionBwdDataAlgo_t algo, size_t *sizeInBytes);
/* As cudnnConvolutionBackwardData: dx = alpha * (gradient of the convolution w.r.t. x, from w and
 * dy) + beta * dx. */
dnncompatStatus_t dnncompatConvolutionBackwardData(dnncompatHandle_t handle, const void *alpha,
                                                   const dnncompatFilterDescriptor_t wDesc, const void *w,
                                                   const dnncompatTensorDescriptor_t dyDesc, const void *dy,
                                                   const dnncompatConvolutionDescriptor_t convDesc,
                                                   dnncompatConvolutionBwdDataAlgo_t algo, void *workSpace,
                                                   size_t workSpaceSizeInBytes, const void *beta,
                                                   const dnncompatTensorDescriptor_t dxDesc, void *dx);

/* As cudnnGetConvolutionBackwardFilterAlgorithmMaxCount: DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_COUNT. */
dnncompatStatus_t dnncompatGetConvolutionBackwardFilterAlgorithmMaxCount(dnncompatHandle_t handle, int *count);
/* As cudnnGetConvolutionBackwardFilterAlgorithm_v7 (see the backward-data form).
 * CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD is always NOT_SUPPORTED, as in cuDNN. */
dnncompatStatus_t dnncompatGetConvolutionBackwardFilterAlgorithm_v7(
    dnncompatHandle_t handle, const dnncompatTensorDescriptor_t srcDesc, const dnncompatTensorDescriptor_t diffDesc,
    const dnncompatConvolutionDescriptor_t convDesc, const dnncompatFilterDescriptor_t gradDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, dnncompatConvolutionBwdFilterAlgoPerf_t *perfResults);
/* As cudnnFindConvolutionBackwardFilterAlgorithm (see the backward-data form). */
dnncompatStatus_t dnncompatFindConvolutionBackwardFilterAlgorithm(
    dnncompatHandle_t handle, const dnncompatTensorDescriptor_t xDesc, const dnncompatTensorDescriptor_t dyDesc,
    const dnncompatConvolutionDescriptor_t convDesc, const dnncompatFilterDescriptor_t dwDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, dnncompatConvolutionBwdFilterAlgoPerf_t *perfResults);
/* As cudnnFindConvolutionBackwardFilterAlgorithmEx (see the backward-data form); dw ends holding
 * the fastest algorithm's result. */
dnncompatStatus_t dnncompatFindConvolutionBackwardFilterAlgorithmEx(
    dnncompatHandle_t handle, const dnncompatTensorDescriptor_t xDesc, const void *x,
    const dnncompatTensorDescriptor_t dyDesc, const void *y, const dnncompatConvolutionDescriptor_t convDesc,
    const dnncompatFilterDescriptor_t dwDesc, void *dw, const int requestedAlgoCount, int *returnedAlgoCount,
    dnncompatConvolutionBwdFilterAlgoPerf_t *perfResults, void *workSpace, size_t workSpaceSizeInBytes);
/* As cudnnGetConvolutionBackwardFilterWorkspaceSize (see the backward-data form); NOT_SUPPORTED
 * for CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD. */
dnncompatStatus_t dnncompatGetConvolutionBackwardFilterWorkspaceSize(
    dnncompatHandle_t handle, const dnncompatTensorDescriptor_t xDesc, const dnncompatTensorDescriptor_t dyDesc,
    const dnncompatConvolutionDescriptor_t convDesc, const dnncompatFilterDescriptor_t gradDesc,
    dnncompatConvolutionBwdFilterAlgo_t algo, size_t *sizeInBytes);
/* As cudnnConvolutionBackwardFilter: dw = alpha * (gradient of the convolution w.r.t. w, from x
 * and dy) + beta * dw. NOT_SUPPORTED for CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD. */
dnncompatStatus_t dnncompatConvolutionBackwardFilter(dnncompatHandle_t handle, const void *alpha,
                                                     const dnncompatTensorDescriptor_t xDesc, const void *x,
                                                     const dnncompatTensorDescriptor_t dyDesc, const void *dy,
                                                     const dnncompatConvolutionDescriptor_t convDesc,
                                                     dnncompatConvolutionBwdFilterAlgo_t algo, void *workSpace,
                                                     size_t workSpaceSizeInBytes, const void *beta,
                                                     const dnncompatFilterDescriptor_t dwDesc, void *dw);

/* As cudnnConvolutionBackwardBias: db = alpha * (sum of dy over N and every spatial position) +
 * beta * db. dy: [N, K, spatial...], db: [1, K, 1...] of the same rank, any strides. BAD_PARAM
 * for null pointers, invalid descriptors or another db shape. */
dnncompatStatus_t dnncompatConvolutionBackwardBias(dnncompatHandle_t handle, const void *alpha,
                                                   const dnncompatTensorDescriptor_t dyDesc, const void *dy,
                                                   const void *beta, const dnncompatTensorDescriptor_t dbDesc,
                                                   void *db);

/* As cudnnConvolutionBiasActivationForward: y = act(alpha1 * conv(x, w) + alpha2 * z + bias).
 * z has y's shape (z may be y itself); bias is [1, K, 1...]. act: CUDNN_ACTIVATION_RELU or
 * CUDNN_ACTIVATION_IDENTITY (IDENTITY only with CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM),
 * else NOT_SUPPORTED, as in cuDNN. Workspace: what dnncompatGetConvolutionForwardWorkspaceSize
 * returns for the algorithm. BAD_PARAM as dnncompatConvolutionForward, and for a z or bias shape
 * other than the above. */
dnncompatStatus_t dnncompatConvolutionBiasActivationForward(
    dnncompatHandle_t handle, const void *alpha1, const dnncompatTensorDescriptor_t xDesc, const void *x,
    const dnncompatFilterDescriptor_t wDesc, const void *w, const dnncompatConvolutionDescriptor_t convDesc,
    dnncompatConvolutionFwdAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *alpha2,
    const dnncompatTensorDescriptor_t zDesc, const void *z, const dnncompatTensorDescriptor_t biasDesc,
    const void *bias, const dnncompatActivationDescriptor_t activationDesc, const dnncompatTensorDescriptor_t yDesc,
    void *y);

/* As cudnnFindConvolutionForwardAlgorithm: every natively running forward algorithm is run (one
 * warm-up, then the median of 3 timed runs, time in ms) on buffers the call allocates; sorted by
 * time, the ones that did not run last (ALLOC_FAILED, then NOT_SUPPORTED: fallback-only
 * algorithms). BAD_PARAM for invalid descriptors, null output pointers, requestedAlgoCount < 1. */
dnncompatStatus_t dnncompatFindConvolutionForwardAlgorithm(
    dnncompatHandle_t handle, const dnncompatTensorDescriptor_t xDesc, const dnncompatFilterDescriptor_t wDesc,
    const dnncompatConvolutionDescriptor_t convDesc, const dnncompatTensorDescriptor_t yDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, dnncompatConvolutionFwdAlgoPerf_t *perfResults);
/* As cudnnFindConvolutionForwardAlgorithmEx: as the non-Ex form, on the caller's x, w, y and
 * workspace (null counts as 0 bytes); an algorithm needing more workspace is not run and
 * reported ALLOC_FAILED. y is overwritten; it ends holding the fastest algorithm's result. */
dnncompatStatus_t dnncompatFindConvolutionForwardAlgorithmEx(
    dnncompatHandle_t handle, const dnncompatTensorDescriptor_t xDesc, const void *x,
    const dnncompatFilterDescriptor_t wDesc, const void *w, const dnncompatConvolutionDescriptor_t convDesc,
    const dnncompatTensorDescriptor_t yDesc, void *y, const int requestedAlgoCount, int *returnedAlgoCount,
    dnncompatConvolutionFwdAlgoPerf_t *perfResults, void *workSpace, size_t workSpaceSizeInBytes);

/* As cudnnOpsVersionCheck / cudnnCnnVersionCheck: always SUCCESS (one library, no sub-library
 * version mismatch is possible). */
dnncompatStatus_t dnncompatOpsVersionCheck(void);
dnncompatStatus_t dnncompatCnnVersionCheck(void);
/* As cudnnIm2Col: writes the GEMM-convolution matrix of x for wDesc and convDesc, of
 * N*OH*OW(*OD) rows and C*R*S(*T) columns (C = xDesc's channels), column-major: element
 * (row (n, oh, ow), column (c, r, s)) at ((c*R + r)*S + s) * (N*OH*OW) + (n*OH + oh)*OW + ow;
 * for N = 1 this is the row-major [C*R*S][OH*OW] layout. Padding cells are 0; stride and
 * dilation as the descriptor says; in CONVOLUTION mode the filter offsets are reversed
 * (r -> R-1-r), so multiplying by the unflipped filter gives the convolution. x: any strides.
 * BAD_PARAM: null pointers, unset descriptors, rank or channel mismatch, filter larger than the
 * padded input. NOT_SUPPORTED: non-FLOAT data. */
dnncompatStatus_t dnncompatIm2Col(dnncompatHandle_t handle, const dnncompatTensorDescriptor_t xDesc, const void *x,
                                  const dnncompatFilterDescriptor_t wDesc,
                                  const dnncompatConvolutionDescriptor_t convDesc, void *colBuffer);
/* As cudnnTransformFilter: dest = alpha * pad(src) + beta * dest as dnncompatTransformTensorEx,
 * filters taken as packed tensors of their dims in their format (NCHW <-> NHWC). BAD_PARAM as
 * TransformTensorEx, or destDesc's format differs from transDesc's destFormat. NOT_SUPPORTED:
 * folding (DNNC-TENSOROPS-TRANSFORM-FOLD). */
dnncompatStatus_t dnncompatTransformFilter(dnncompatHandle_t handle,
                                           const dnncompatTensorTransformDescriptor_t transDesc, const void *alpha,
                                           const dnncompatFilterDescriptor_t srcDesc, const void *srcData,
                                           const void *beta, const dnncompatFilterDescriptor_t destDesc,
                                           void *destData);
/* As cudnnReorderFilterAndBias: validates its arguments (BAD_PARAM), then NOT_SUPPORTED
 * (DNNC-CONV-REORDER-FILTER-BIAS: INT8x32 reordering for NCHW_VECT_C, not implemented). */
dnncompatStatus_t dnncompatReorderFilterAndBias(dnncompatHandle_t handle, const dnncompatFilterDescriptor_t filterDesc,
                                                dnncompatReorderType_t reorderType, const void *filterData,
                                                void *reorderedFilterData, int reorderBias, const void *biasData,
                                                void *reorderedBiasData);

/* end of section conv-backward */

/* ------------------------------------------------------------------------------------------ */
/* Fused operations and folded backward-data descriptors (as cudnn_cnn.h)                     */
/* ------------------------------------------------------------------------------------------ */

typedef struct dnncompatFusedOpsConstParamStruct *dnncompatFusedOpsConstParamPack_t;
typedef struct dnncompatFusedOpsVariantParamStruct *dnncompatFusedOpsVariantParamPack_t;
typedef struct dnncompatFusedOpsPlanStruct *dnncompatFusedOpsPlan_t;

/* As cudnnFusedOps_t. The steps in [ ] are optional (disabled by a CUDNN_PTR_NULL placeholder or
 * a null descriptor). */
typedef enum DNNCOMPAT_ENUM_BASE {
    /* [per-channel scale], [per-channel bias], [activation], convolution fwd, [y sum, y sum^2] */
    DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_CONV_BNSTATS = 0,
    /* [per-channel scale], [per-channel bias], [activation], convolution bwd-filter */
    DNNCOMPAT_FUSED_SCALE_BIAS_ACTIVATION_WGRAD = 1,
    /* equivalent scale/bias from ySum, ySqSum; [running stats update], [saved mean, inv std] */
    DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_TRAINING = 2,
    /* equivalent scale/bias from the running mean and variance */
    DNNCOMPAT_FUSED_BN_FINALIZE_STATISTICS_INFERENCE = 3,
    /* reserved for future use in cuDNN (NOT_SUPPORTED) */
    DNNCOMPAT_FUSED_CONV_SCALE_BIAS_ADD_ACTIVATION = 4,
    DNNCOMPAT_FUSED_SCALE_BIAS_ADD_ACTIVATION_GEN_BITMASK = 5,
    DNNCOMPAT_FUSED_DACTIVATION_FORK_DBATCHNORM = 6
} dnncompatFusedOps_t;

/* As cudnnFusedOpsConstParamLabel_t. *_DESC: set passes the descriptor itself (copied by value,
 * null clears it); get passes a created descriptor that receives a copy. *_PLACEHOLDER: set/get
 * pass a dnncompatFusedOpsPointerPlaceHolder_t *. BN_MODE: a dnncompatBatchNormMode_t *. */
typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_PARAM_XDESC = 0,
    DNNCOMPAT_PARAM_XDATA_PLACEHOLDER = 1,
    DNNCOMPAT_PARAM_BN_MODE = 2,
    DNNCOMPAT_PARAM_BN_EQSCALEBIAS_DESC = 3,
    DNNCOMPAT_PARAM_BN_EQSCALE_PLACEHOLDER = 4,
    DNNCOMPAT_PARAM_BN_EQBIAS_PLACEHOLDER = 5,
    DNNCOMPAT_PARAM_ACTIVATION_DESC = 6,
    DNNCOMPAT_PARAM_CONV_DESC = 7,
    DNNCOMPAT_PARAM_WDESC = 8,
    DNNCOMPAT_PARAM_WDATA_PLACEHOLDER = 9,
    DNNCOMPAT_PARAM_DWDESC = 10,
    DNNCOMPAT_PARAM_DWDATA_PLACEHOLDER = 11,
    DNNCOMPAT_PARAM_YDESC = 12,
    DNNCOMPAT_PARAM_YDATA_PLACEHOLDER = 13,
    DNNCOMPAT_PARAM_DYDESC = 14,
    DNNCOMPAT_PARAM_DYDATA_PLACEHOLDER = 15,
    DNNCOMPAT_PARAM_YSTATS_DESC = 16,
    DNNCOMPAT_PARAM_YSUM_PLACEHOLDER = 17,
    DNNCOMPAT_PARAM_YSQSUM_PLACEHOLDER = 18,
    DNNCOMPAT_PARAM_BN_SCALEBIAS_MEANVAR_DESC = 19,
    DNNCOMPAT_PARAM_BN_SCALE_PLACEHOLDER = 20,
    DNNCOMPAT_PARAM_BN_BIAS_PLACEHOLDER = 21,
    DNNCOMPAT_PARAM_BN_SAVED_MEAN_PLACEHOLDER = 22,
    DNNCOMPAT_PARAM_BN_SAVED_INVSTD_PLACEHOLDER = 23,
    DNNCOMPAT_PARAM_BN_RUNNING_MEAN_PLACEHOLDER = 24,
    DNNCOMPAT_PARAM_BN_RUNNING_VAR_PLACEHOLDER = 25,
    DNNCOMPAT_PARAM_ZDESC = 26,
    DNNCOMPAT_PARAM_ZDATA_PLACEHOLDER = 27,
    DNNCOMPAT_PARAM_BN_Z_EQSCALEBIAS_DESC = 28,
    DNNCOMPAT_PARAM_BN_Z_EQSCALE_PLACEHOLDER = 29,
    DNNCOMPAT_PARAM_BN_Z_EQBIAS_PLACEHOLDER = 30,
    DNNCOMPAT_PARAM_ACTIVATION_BITMASK_DESC = 31,
    DNNCOMPAT_PARAM_ACTIVATION_BITMASK_PLACEHOLDER = 32,
    DNNCOMPAT_PARAM_DXDESC = 33,
    DNNCOMPAT_PARAM_DXDATA_PLACEHOLDER = 34,
    DNNCOMPAT_PARAM_DZDESC = 35,
    DNNCOMPAT_PARAM_DZDATA_PLACEHOLDER = 36,
    DNNCOMPAT_PARAM_BN_DSCALE_PLACEHOLDER = 37,
    DNNCOMPAT_PARAM_BN_DBIAS_PLACEHOLDER = 38
} dnncompatFusedOpsConstParamLabel_t;

/* As cudnnFusedOpsPointerPlaceHolder_t: NULL disables the optional step that reads or writes
 * the buffer; ELEM_ALIGNED / 16B_ALIGNED promise the pointer's alignment (checked on execute). */
typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_PTR_NULL = 0,
    DNNCOMPAT_PTR_ELEM_ALIGNED = 1,
    DNNCOMPAT_PTR_16B_ALIGNED = 2
} dnncompatFusedOpsPointerPlaceHolder_t;

/* As cudnnFusedOpsVariantParamLabel_t. DNNCOMPAT_PTR_*: set passes the data pointer itself, get
 * a void ** that receives it. SCALAR_*: set/get pass a pointer to the host value (set copies it). */
typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_PTR_XDATA = 0,
    DNNCOMPAT_PTR_BN_EQSCALE = 1,
    DNNCOMPAT_PTR_BN_EQBIAS = 2,
    DNNCOMPAT_PTR_WDATA = 3,
    DNNCOMPAT_PTR_DWDATA = 4,
    DNNCOMPAT_PTR_YDATA = 5,
    DNNCOMPAT_PTR_DYDATA = 6,
    DNNCOMPAT_PTR_YSUM = 7,
    DNNCOMPAT_PTR_YSQSUM = 8,
    DNNCOMPAT_PTR_WORKSPACE = 9,
    DNNCOMPAT_PTR_BN_SCALE = 10,
    DNNCOMPAT_PTR_BN_BIAS = 11,
    DNNCOMPAT_PTR_BN_SAVED_MEAN = 12,
    DNNCOMPAT_PTR_BN_SAVED_INVSTD = 13,
    DNNCOMPAT_PTR_BN_RUNNING_MEAN = 14,
    DNNCOMPAT_PTR_BN_RUNNING_VAR = 15,
    DNNCOMPAT_PTR_ZDATA = 16,
    DNNCOMPAT_PTR_BN_Z_EQSCALE = 17,
    DNNCOMPAT_PTR_BN_Z_EQBIAS = 18,
    DNNCOMPAT_PTR_ACTIVATION_BITMASK = 19,
    DNNCOMPAT_PTR_DXDATA = 20,
    DNNCOMPAT_PTR_DZDATA = 21,
    DNNCOMPAT_PTR_BN_DSCALE = 22,
    DNNCOMPAT_PTR_BN_DBIAS = 23,
    DNNCOMPAT_SCALAR_SIZE_T_WORKSPACE_SIZE_IN_BYTES = 100, /* size_t */
    DNNCOMPAT_SCALAR_INT64_T_BN_ACCUMULATION_COUNT = 101,  /* int64_t */
    DNNCOMPAT_SCALAR_DOUBLE_BN_EXP_AVG_FACTOR = 102,       /* double */
    DNNCOMPAT_SCALAR_DOUBLE_BN_EPSILON = 103               /* double */
} dnncompatFusedOpsVariantParamLabel_t;

/* As cudnnCreate/DestroyFusedOpsConstParamPack (cuDNN 9 API reference). Create: BAD_PARAM for a
 * null pointer or an ops value outside dnncompatFusedOps_t; every placeholder starts as
 * DNNCOMPAT_PTR_NULL, every descriptor unset, BN_MODE SPATIAL. Destroy: BAD_PARAM for a null,
 * destroyed or foreign pack. */
dnncompatStatus_t dnncompatCreateFusedOpsConstParamPack(dnncompatFusedOpsConstParamPack_t *constPack,
                                                        dnncompatFusedOps_t ops);
dnncompatStatus_t dnncompatDestroyFusedOpsConstParamPack(dnncompatFusedOpsConstParamPack_t constPack);
/* As cudnnSetFusedOpsConstParamPackAttribute: stores a copy of the attribute (descriptors by
 * value: later changes to the caller's descriptor do not reach the pack; a null descriptor clears
 * it). BAD_PARAM: dead pack, unknown label, null param for a non-descriptor label, an unset
 * descriptor, an invalid placeholder or batch-norm mode. */
dnncompatStatus_t dnncompatSetFusedOpsConstParamPackAttribute(dnncompatFusedOpsConstParamPack_t constPack,
                                                              dnncompatFusedOpsConstParamLabel_t paramLabel,
                                                              const void *param);
/* As cudnnGetFusedOpsConstParamPackAttribute: writes what Set stored; *isNULL = 1 when the
 * attribute holds nothing (descriptor never set or cleared, placeholder DNNCOMPAT_PTR_NULL),
 * else 0. A descriptor is copied into the caller's created descriptor (left untouched when
 * *isNULL = 1). BAD_PARAM: dead pack or descriptor, unknown label, null param or isNULL. */
dnncompatStatus_t dnncompatGetFusedOpsConstParamPackAttribute(const dnncompatFusedOpsConstParamPack_t constPack,
                                                              dnncompatFusedOpsConstParamLabel_t paramLabel,
                                                              void *param, int *isNULL);
/* As cudnnCreate/DestroyFusedOpsVariantParamPack (see the const pack); pointers start null,
 * scalars 0. */
dnncompatStatus_t dnncompatCreateFusedOpsVariantParamPack(dnncompatFusedOpsVariantParamPack_t *varPack,
                                                          dnncompatFusedOps_t ops);
dnncompatStatus_t dnncompatDestroyFusedOpsVariantParamPack(dnncompatFusedOpsVariantParamPack_t varPack);
/* As cudnnSet/GetFusedOpsVariantParamPackAttribute (see dnncompatFusedOpsVariantParamLabel_t).
 * BAD_PARAM: dead pack, unknown label, null ptr for a scalar (set) or for any label (get). */
dnncompatStatus_t dnncompatSetFusedOpsVariantParamPackAttribute(dnncompatFusedOpsVariantParamPack_t varPack,
                                                                dnncompatFusedOpsVariantParamLabel_t paramLabel,
                                                                void *ptr);
dnncompatStatus_t dnncompatGetFusedOpsVariantParamPackAttribute(const dnncompatFusedOpsVariantParamPack_t varPack,
                                                                dnncompatFusedOpsVariantParamLabel_t paramLabel,
                                                                void *ptr);
/* As cudnnCreate/DestroyFusedOpsPlan (see the const pack). */
dnncompatStatus_t dnncompatCreateFusedOpsPlan(dnncompatFusedOpsPlan_t *plan, dnncompatFusedOps_t ops);
dnncompatStatus_t dnncompatDestroyFusedOpsPlan(dnncompatFusedOpsPlan_t plan);
/* As cudnnMakeFusedOpsPlan: validates constPack for the plan's operation and prepares it;
 * *workspaceSizeInBytes = the workspace FusedOpsExecute needs (the activated x copy plus the
 * convolution's workspace; 0 for the BN finalize operations). The plan keeps a copy of the pack.
 * Layouts: x, y, dy any strides; per-channel tensors (eq scale/bias, y stats, BN params) packed
 * 1xCx1x1 (rank of x). BAD_PARAM: dead handle/plan/pack, pack of another operation, a required
 * descriptor or placeholder missing, inconsistent shapes. NOT_SUPPORTED (support catalogue rows
 * DNNC-FUSED-*): the reserved operations, non-FLOAT data, an activation other than RELU or
 * IDENTITY, PER_ACTIVATION batch-norm mode. */
dnncompatStatus_t dnncompatMakeFusedOpsPlan(dnncompatHandle_t handle, dnncompatFusedOpsPlan_t plan,
                                            const dnncompatFusedOpsConstParamPack_t constPack,
                                            size_t *workspaceSizeInBytes);
/* As cudnnFusedOpsExecute: runs the made plan on varPack's buffers.
 * CONV_BNSTATS: x' = act(eqScale * x + eqBias) per channel of x, y = conv(x', w) (overwritten),
 *   ySum[k] = sum of y over N and space, ySqSum[k] = sum of y^2 (FLOAT).
 * WGRAD: x' as above, dw = conv_bwd_filter(x', dy) (overwritten).
 * BN_FINALIZE_STATISTICS_TRAINING, per channel with m = accumulation count:
 *   mean = ySum / m, var = max(ySqSum / m - mean^2, 0) (biased; the clamp only catches
 *   rounding), invStd = 1 / sqrt(var + epsilon),
 *   eqScale = scale * invStd, eqBias = bias - mean * eqScale; savedMean = mean,
 *   savedInvStd = invStd; runningMean = (1 - f) * runningMean + f * mean and
 *   runningVar = (1 - f) * runningVar + f * var * m / (m - 1) (f = exponential average factor).
 * BN_FINALIZE_STATISTICS_INFERENCE: eqScale = scale / sqrt(runningVar + epsilon),
 *   eqBias = bias - runningMean * eqScale.
 * BAD_PARAM: dead handle/plan/pack, plan not made, pack of another operation, a null pointer
 * whose placeholder is not DNNCOMPAT_PTR_NULL, a pointer not aligned as its placeholder says,
 * workspace size below the plan's (or null workspace while needed), accumulation count below 1,
 * epsilon below DNNCOMPAT_BN_MIN_EPSILON, a non-finite factor. With m = 1 the running variance
 * takes the biased variance; factor 1 overwrites the running stats (as BN forward training). */
dnncompatStatus_t dnncompatFusedOpsExecute(dnncompatHandle_t handle, const dnncompatFusedOpsPlan_t plan,
                                           dnncompatFusedOpsVariantParamPack_t varPack);

/* As cudnnGetFoldedConvBackwardDataDescriptors: validates its arguments (BAD_PARAM for dead or
 * unset descriptors), then NOT_SUPPORTED (DNNC-FUSED-FOLDED-DGRAD: cuDNN does not document the
 * folded layout these descriptors describe). */
dnncompatStatus_t dnncompatGetFoldedConvBackwardDataDescriptors(
    const dnncompatHandle_t handle, const dnncompatFilterDescriptor_t filterDesc,
    const dnncompatTensorDescriptor_t diffDesc, const dnncompatConvolutionDescriptor_t convDesc,
    const dnncompatTensorDescriptor_t gradDesc, const dnncompatTensorFormat_t transformFormat,
    dnncompatFilterDescriptor_t foldedFilterDesc, dnncompatTensorDescriptor_t paddedDiffDesc,
    dnncompatConvolutionDescriptor_t foldedConvDesc, dnncompatTensorDescriptor_t foldedGradDesc,
    dnncompatTensorTransformDescriptor_t filterFoldTransDesc, dnncompatTensorTransformDescriptor_t diffPadTransDesc,
    dnncompatTensorTransformDescriptor_t gradFoldTransDesc, dnncompatTensorTransformDescriptor_t gradUnfoldTransDesc);

/* end of section fused-ops */

/* ------------------------------------------------------------------------------------------ */
/* Batch normalization training and backward, dropout (as cudnn_ops.h)                        */
/* ------------------------------------------------------------------------------------------ */

/* As cudnnBatchNormalizationForwardTraining (cuDNN 9 API reference): per channel (SPATIAL,
 * SPATIAL_PERSISTENT: over N and spatial) or per activation (PER_ACTIVATION: over N) batch mean m
 * and biased variance v; y = alpha * (scale * (x - m) / sqrt(v + epsilon) + bias) + beta * y
 * (y not read when beta = 0). x, y: [N, C, H, W] or [N, C, D, H, W], FLOAT, HALF or BFLOAT16
 * (HALF / BFLOAT16 computed in FP32), any strides, equal dims. m and v are summed in double;
 * y is normalised in FP32 with m's FP32 rounding error folded into the shift. bnScaleBiasMeanVarDesc: as
 * dnncompatDeriveBNTensorDescriptor gives (packed FLOAT). resultRunningMean = (1 - factor) * runningMean + factor * m
 * and resultRunningVariance likewise with the unbiased variance v * n / (n - 1) (v itself when n = 1); factor 1 writes
 * the batch statistics without reading the old values. resultSaveMean = m, resultSaveInvVariance = 1 / sqrt(v +
 * epsilon). Each pair of result pointers may be null (not written), but only both. BAD_PARAM: null alpha, beta, x, y,
 * bnScale or bnBias; exactly one of a result pair null; invalid or mismatched descriptors; epsilon <
 * DNNCOMPAT_BN_MIN_EPSILON; unknown mode. NOT_SUPPORTED: other ranks, or DOUBLE / integer data. */
dnncompatStatus_t dnncompatBatchNormalizationForwardTraining(
    dnncompatHandle_t handle, dnncompatBatchNormMode_t mode, const void *alpha, const void *beta,
    const dnncompatTensorDescriptor_t xDesc, const void *x, const dnncompatTensorDescriptor_t yDesc, void *y,
    const dnncompatTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    double exponentialAverageFactor, void *resultRunningMean, void *resultRunningVariance, double epsilon,
    void *resultSaveMean, void *resultSaveInvVariance);
/* As cudnnBatchNormalizationForwardTrainingEx: dnncompatBatchNormalizationForwardTraining, then
 * for bnOps BN_ADD_ACTIVATION + z, and for BN_ACTIVATION / BN_ADD_ACTIVATION the activation of
 * activationDesc (RELU only), before the alpha/beta blend: y = alpha * relu(BN(x) [+ z]) +
 * beta * y. z: zDesc with x's dims (any strides). workspace and reserveSpace may be null: this
 * implementation needs none (the size queries return 0). BAD_PARAM as the non-Ex function, plus
 * an unknown bnOps, a missing z / activationDesc for the bnOps asking for them.
 * NOT_SUPPORTED: an activation mode other than RELU. */
dnncompatStatus_t dnncompatBatchNormalizationForwardTrainingEx(
    dnncompatHandle_t handle, dnncompatBatchNormMode_t mode, dnncompatBatchNormOps_t bnOps, const void *alpha,
    const void *beta, const dnncompatTensorDescriptor_t xDesc, const void *xData,
    const dnncompatTensorDescriptor_t zDesc, const void *zData, const dnncompatTensorDescriptor_t yDesc, void *yData,
    const dnncompatTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    double exponentialAverageFactor, void *resultRunningMean, void *resultRunningVariance, double epsilon,
    void *resultSaveMean, void *resultSaveInvVariance, dnncompatActivationDescriptor_t activationDesc, void *workspace,
    size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes);
/* As cudnnBatchNormalizationBackward: dx = alphaDataDiff * dL/dx + betaDataDiff * dx,
 * dBnScaleResult = alphaParamDiff * dL/dscale + betaParamDiff * dBnScaleResult, and the same for
 * dBnBiasResult (each not read when its beta is 0). x, dy, dx: equal dims, any strides, FLOAT,
 * HALF or BFLOAT16 (computed in FP32, rounded once; parameters and statistics FLOAT).
 * The batch statistics are savedMean and 1 / savedInvVariance^2 - epsilon when both are given,
 * else recomputed from x. BAD_PARAM: null alpha/beta pointers, x, dy, dx, bnScale,
 * dBnScaleResult or dBnBiasResult; exactly one of savedMean / savedInvVariance null; invalid or
 * mismatched descriptors; epsilon < DNNCOMPAT_BN_MIN_EPSILON; unknown mode. NOT_SUPPORTED: other
 * ranks, or DOUBLE / integer data. */
dnncompatStatus_t dnncompatBatchNormalizationBackward(
    dnncompatHandle_t handle, dnncompatBatchNormMode_t mode, const void *alphaDataDiff, const void *betaDataDiff,
    const void *alphaParamDiff, const void *betaParamDiff, const dnncompatTensorDescriptor_t xDesc, const void *x,
    const dnncompatTensorDescriptor_t dyDesc, const void *dy, const dnncompatTensorDescriptor_t dxDesc, void *dx,
    const dnncompatTensorDescriptor_t dBnScaleBiasDesc, const void *bnScale, void *dBnScaleResult, void *dBnBiasResult,
    double epsilon, const void *savedMean, const void *savedInvVariance);
/* As cudnnBatchNormalizationBackwardEx: dnncompatBatchNormalizationBackward; with
 * BN_ACTIVATION / BN_ADD_ACTIVATION (RELU) the incoming gradient is first masked by y > 0
 * (yData: the forward output), and BN_ADD_ACTIVATION writes that masked gradient to dzData
 * (dzDesc, not blended). bnBiasData is not read. Workspace / reserve space: none needed.
 * Statuses as dnncompatBatchNormalizationBackward, plus BAD_PARAM for an unknown bnOps or a
 * missing y / dz / activationDesc where bnOps needs them; NOT_SUPPORTED for a non-RELU
 * activation. */
dnncompatStatus_t dnncompatBatchNormalizationBackwardEx(
    dnncompatHandle_t handle, dnncompatBatchNormMode_t mode, dnncompatBatchNormOps_t bnOps, const void *alphaDataDiff,
    const void *betaDataDiff, const void *alphaParamDiff, const void *betaParamDiff,
    const dnncompatTensorDescriptor_t xDesc, const void *xData, const dnncompatTensorDescriptor_t yDesc,
    const void *yData, const dnncompatTensorDescriptor_t dyDesc, const void *dyData,
    const dnncompatTensorDescriptor_t dzDesc, void *dzData, const dnncompatTensorDescriptor_t dxDesc, void *dxData,
    const dnncompatTensorDescriptor_t dBnScaleBiasDesc, const void *bnScaleData, const void *bnBiasData,
    void *dBnScaleData, void *dBnBiasData, double epsilon, const void *savedMean, const void *savedInvVariance,
    dnncompatActivationDescriptor_t activationDesc, void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace,
    size_t reserveSpaceSizeInBytes);
/* As cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize: *sizeInBytes = 0 (temporaries
 * live in the handle). zDesc and activationDesc may be null when bnOps does not use them (as in
 * cuDNN: z for BN_ADD_ACTIVATION, the activation for BN_ACTIVATION and BN_ADD_ACTIVATION).
 * BAD_PARAM: null handle / size pointer, invalid or mismatched descriptors, a descriptor bnOps
 * needs missing, unknown mode or bnOps. */
dnncompatStatus_t dnncompatGetBatchNormalizationForwardTrainingExWorkspaceSize(
    dnncompatHandle_t handle, dnncompatBatchNormMode_t mode, dnncompatBatchNormOps_t bnOps,
    const dnncompatTensorDescriptor_t xDesc, const dnncompatTensorDescriptor_t zDesc,
    const dnncompatTensorDescriptor_t yDesc, const dnncompatTensorDescriptor_t bnScaleBiasMeanVarDesc,
    const dnncompatActivationDescriptor_t activationDesc, size_t *sizeInBytes);
/* As cudnnGetBatchNormalizationBackwardExWorkspaceSize: *sizeInBytes = 0. yDesc, dzDesc and
 * activationDesc may be null when bnOps does not use them. Statuses as the forward query. */
dnncompatStatus_t dnncompatGetBatchNormalizationBackwardExWorkspaceSize(
    dnncompatHandle_t handle, dnncompatBatchNormMode_t mode, dnncompatBatchNormOps_t bnOps,
    const dnncompatTensorDescriptor_t xDesc, const dnncompatTensorDescriptor_t yDesc,
    const dnncompatTensorDescriptor_t dyDesc, const dnncompatTensorDescriptor_t dzDesc,
    const dnncompatTensorDescriptor_t dxDesc, const dnncompatTensorDescriptor_t dBnScaleBiasDesc,
    const dnncompatActivationDescriptor_t activationDesc, size_t *sizeInBytes);
/* As cudnnGetBatchNormalizationTrainingExReserveSpaceSize: *sizeInBytes = 0 (backward needs
 * only the saved mean / inverse variance). BAD_PARAM: null handle / size pointer, invalid xDesc,
 * unknown mode or bnOps, a null, dead or unset activationDesc for BN_ACTIVATION /
 * BN_ADD_ACTIVATION (with BN it may be null and is not read). */
dnncompatStatus_t dnncompatGetBatchNormalizationTrainingExReserveSpaceSize(
    dnncompatHandle_t handle, dnncompatBatchNormMode_t mode, dnncompatBatchNormOps_t bnOps,
    const dnncompatActivationDescriptor_t activationDesc, const dnncompatTensorDescriptor_t xDesc, size_t *sizeInBytes);

/* Dropout (as cudnn_ops.h). The random stream is NOT cuDNN's Philox stream: each element's keep
 * decision comes from a counter-based generator (SplitMix64 of seed, call counter and element
 * index), so results have the same distribution (each element kept with probability 1 - p,
 * independently) but differ bit for bit from cuDNN's. Forward stores the mask in reserveSpace;
 * backward applies the same mask. Kept elements are scaled by 1 / (1 - p); p = 0 is the identity,
 * p = 1 zeroes everything. */

/* As cudnnCreateDropoutDescriptor. BAD_PARAM for a null pointer. */
dnncompatStatus_t dnncompatCreateDropoutDescriptor(dnncompatDropoutDescriptor_t *dropoutDesc);
/* As cudnnDestroyDropoutDescriptor. BAD_PARAM for a null, destroyed or foreign descriptor. */
dnncompatStatus_t dnncompatDestroyDropoutDescriptor(dnncompatDropoutDescriptor_t dropoutDesc);
/* As cudnnDropoutGetStatesSize: bytes of generator state (16: seed and call counter). */
dnncompatStatus_t dnncompatDropoutGetStatesSize(dnncompatHandle_t handle, size_t *sizeInBytes);
/* As cudnnDropoutGetReserveSpaceSize: one byte per element of xdesc (the mask). BAD_PARAM for an
 * invalid descriptor or null pointer. */
dnncompatStatus_t dnncompatDropoutGetReserveSpaceSize(dnncompatTensorDescriptor_t xdesc, size_t *sizeInBytes);
/* As cudnnSetDropoutDescriptor: dropout probability p in [0, 1] and the generator states (at
 * least dnncompatDropoutGetStatesSize bytes, host memory), initialized from seed. As in cuDNN, a
 * null states pointer sets only p (a forward call with p > 0 then returns BAD_PARAM). BAD_PARAM:
 * p outside [0, 1], stateSizeInBytes too small for non-null states, invalid descriptor/handle. */
dnncompatStatus_t dnncompatSetDropoutDescriptor(dnncompatDropoutDescriptor_t dropoutDesc, dnncompatHandle_t handle,
                                                float dropout, void *states, size_t stateSizeInBytes,
                                                unsigned long long seed);
/* As cudnnRestoreDropoutDescriptor: sets p, states and seed without re-initializing the states
 * (they keep the generator position saved in them). Statuses as the setter. */
dnncompatStatus_t dnncompatRestoreDropoutDescriptor(dnncompatDropoutDescriptor_t dropoutDesc, dnncompatHandle_t handle,
                                                    float dropout, void *states, size_t stateSizeInBytes,
                                                    unsigned long long seed);
/* As cudnnGetDropoutDescriptor: p, states pointer and seed. BAD_PARAM for an invalid descriptor
 * or a null output pointer. */
dnncompatStatus_t dnncompatGetDropoutDescriptor(dnncompatDropoutDescriptor_t dropoutDesc, dnncompatHandle_t handle,
                                                float *dropout, void **states, unsigned long long *seed);
/* As cudnnDropoutForward: y = mask * x / (1 - p), mask stored in reserveSpace (one byte per
 * element); advances the generator. The mask multiplies: a dropped NaN / Inf input gives NaN. x, y: FLOAT, HALF or
 * BFLOAT16, equal dims, any strides. BAD_PARAM: null pointers, unset descriptor or states, mismatched descriptors,
 * reserveSpaceSizeInBytes below dnncompatDropoutGetReserveSpaceSize. NOT_SUPPORTED: DOUBLE / integer data. */
dnncompatStatus_t dnncompatDropoutForward(dnncompatHandle_t handle, const dnncompatDropoutDescriptor_t dropoutDesc,
                                          const dnncompatTensorDescriptor_t xdesc, const void *x,
                                          const dnncompatTensorDescriptor_t ydesc, void *y, void *reserveSpace,
                                          size_t reserveSpaceSizeInBytes);
/* As cudnnDropoutBackward: dx = mask * dy / (1 - p) with the mask forward stored in
 * reserveSpace. Statuses as dnncompatDropoutForward. */
dnncompatStatus_t dnncompatDropoutBackward(dnncompatHandle_t handle, const dnncompatDropoutDescriptor_t dropoutDesc,
                                           const dnncompatTensorDescriptor_t dydesc, const void *dy,
                                           const dnncompatTensorDescriptor_t dxdesc, void *dx, void *reserveSpace,
                                           size_t reserveSpaceSizeInBytes);

/* Normalization API (As cudnnNormalization*, cuDNN 9 API reference). With groupCnt == 1 these are
 * the batch-norm functions: mode PER_ACTIVATION = BATCHNORM_PER_ACTIVATION, PER_CHANNEL =
 * BATCHNORM_SPATIAL (SPATIAL_PERSISTENT with NORM_ALGO_PERSIST); normOps NORM / NORM_ACTIVATION /
 * NORM_ADD_ACTIVATION = BATCHNORM_OPS_BN / BN_ACTIVATION / BN_ADD_ACTIVATION. Scale/bias and
 * mean/variance have separate descriptors, which must have equal dims (BAD_PARAM otherwise).
 * All statuses of the batch-norm functions apply, plus: BAD_PARAM for an unknown mode, algo or
 * normOps; NOT_SUPPORTED for groupCnt != 1 (DNNC-NORM-GROUPCNT). The reserve-space query reads
 * activationDesc for the normOps that activate, as the batch-norm one does. */
/* As cudnnDeriveNormTensorDescriptor: sets both descriptors to [1, C, 1, 1(, 1)] (PER_CHANNEL)
 * or [1, C, spatial...] (PER_ACTIVATION), packed NCHW, FLOAT for HALF/BFLOAT16 x. */
dnncompatStatus_t dnncompatDeriveNormTensorDescriptor(dnncompatTensorDescriptor_t derivedNormScaleBiasDesc,
                                                      dnncompatTensorDescriptor_t derivedNormMeanVarDesc,
                                                      const dnncompatTensorDescriptor_t xDesc, dnncompatNormMode_t mode,
                                                      int groupCnt);
/* As cudnnNormalizationForwardInference = dnncompatBatchNormalizationForwardInference. zDesc, z
 * and activationDesc are ignored; normOps other than NORM: NOT_SUPPORTED
 * (DNNC-NORM-INFERENCE-OPS). */
dnncompatStatus_t dnncompatNormalizationForwardInference(
    dnncompatHandle_t handle, dnncompatNormMode_t mode, dnncompatNormOps_t normOps, dnncompatNormAlgo_t algo,
    const void *alpha, const void *beta, const dnncompatTensorDescriptor_t xDesc, const void *x,
    const dnncompatTensorDescriptor_t normScaleBiasDesc, const void *normScale, const void *normBias,
    const dnncompatTensorDescriptor_t normMeanVarDesc, const void *estimatedMean, const void *estimatedVariance,
    const dnncompatTensorDescriptor_t zDesc, const void *z, dnncompatActivationDescriptor_t activationDesc,
    const dnncompatTensorDescriptor_t yDesc, void *y, double epsilon, int groupCnt);
/* As cudnnGetNormalizationForwardTrainingWorkspaceSize / BackwardWorkspaceSize /
 * TrainingReserveSpaceSize: *sizeInBytes = 0 after validating the descriptors as the compute
 * call does (none of the three buffers is used). */
dnncompatStatus_t dnncompatGetNormalizationForwardTrainingWorkspaceSize(
    dnncompatHandle_t handle, dnncompatNormMode_t mode, dnncompatNormOps_t normOps, dnncompatNormAlgo_t algo,
    const dnncompatTensorDescriptor_t xDesc, const dnncompatTensorDescriptor_t zDesc,
    const dnncompatTensorDescriptor_t yDesc, const dnncompatTensorDescriptor_t normScaleBiasDesc,
    const dnncompatActivationDescriptor_t activationDesc, const dnncompatTensorDescriptor_t normMeanVarDesc,
    size_t *sizeInBytes, int groupCnt);
dnncompatStatus_t dnncompatGetNormalizationBackwardWorkspaceSize(
    dnncompatHandle_t handle, dnncompatNormMode_t mode, dnncompatNormOps_t normOps, dnncompatNormAlgo_t algo,
    const dnncompatTensorDescriptor_t xDesc, const dnncompatTensorDescriptor_t yDesc,
    const dnncompatTensorDescriptor_t dyDesc, const dnncompatTensorDescriptor_t dzDesc,
    const dnncompatTensorDescriptor_t dxDesc, const dnncompatTensorDescriptor_t dNormScaleBiasDesc,
    const dnncompatActivationDescriptor_t activationDesc, const dnncompatTensorDescriptor_t normMeanVarDesc,
    size_t *sizeInBytes, int groupCnt);
dnncompatStatus_t dnncompatGetNormalizationTrainingReserveSpaceSize(
    dnncompatHandle_t handle, dnncompatNormMode_t mode, dnncompatNormOps_t normOps, dnncompatNormAlgo_t algo,
    const dnncompatActivationDescriptor_t activationDesc, const dnncompatTensorDescriptor_t xDesc, size_t *sizeInBytes,
    int groupCnt);
/* As cudnnNormalizationForwardTraining = dnncompatBatchNormalizationForwardTrainingEx (running
 * and saved statistics per channel or activation; the pairs may each be null together). */
dnncompatStatus_t dnncompatNormalizationForwardTraining(
    dnncompatHandle_t handle, dnncompatNormMode_t mode, dnncompatNormOps_t normOps, dnncompatNormAlgo_t algo,
    const void *alpha, const void *beta, const dnncompatTensorDescriptor_t xDesc, const void *xData,
    const dnncompatTensorDescriptor_t normScaleBiasDesc, const void *normScale, const void *normBias,
    double exponentialAverageFactor, const dnncompatTensorDescriptor_t normMeanVarDesc, void *resultRunningMean,
    void *resultRunningVariance, double epsilon, void *resultSaveMean, void *resultSaveInvVariance,
    dnncompatActivationDescriptor_t activationDesc, const dnncompatTensorDescriptor_t zDesc, const void *zData,
    const dnncompatTensorDescriptor_t yDesc, void *yData, void *workspace, size_t workSpaceSizeInBytes,
    void *reserveSpace, size_t reserveSpaceSizeInBytes, int groupCnt);
/* As cudnnNormalizationBackward = dnncompatBatchNormalizationBackwardEx (normBiasData unused:
 * the activation mask comes from yData). */
dnncompatStatus_t dnncompatNormalizationBackward(
    dnncompatHandle_t handle, dnncompatNormMode_t mode, dnncompatNormOps_t normOps, dnncompatNormAlgo_t algo,
    const void *alphaDataDiff, const void *betaDataDiff, const void *alphaParamDiff, const void *betaParamDiff,
    const dnncompatTensorDescriptor_t xDesc, const void *xData, const dnncompatTensorDescriptor_t yDesc,
    const void *yData, const dnncompatTensorDescriptor_t dyDesc, const void *dyData,
    const dnncompatTensorDescriptor_t dzDesc, void *dzData, const dnncompatTensorDescriptor_t dxDesc, void *dxData,
    const dnncompatTensorDescriptor_t dNormScaleBiasDesc, const void *normScaleData, const void *normBiasData,
    void *dNormScaleData, void *dNormBiasData, double epsilon, const dnncompatTensorDescriptor_t normMeanVarDesc,
    const void *savedMean, const void *savedInvVariance, dnncompatActivationDescriptor_t activationDesc,
    void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes, int groupCnt);

/* end of section norm-training */

/* ------------------------------------------------------------------------------------------ */
/* Activation, pooling, softmax, LRN, divisive normalization (as cudnn_ops.h)                 */
/* ------------------------------------------------------------------------------------------ */

/* Activation descriptors. Set: BAD_PARAM for an unknown mode or NaN option, or a NaN coef.
 * coef is CLIPPED_RELU's ceiling and ELU's alpha (ignored by the other modes); swish_beta is
 * SWISH's beta (default 1). Get: BAD_PARAM for a null, destroyed or unset descriptor or a null
 * output pointer. As cudnnCreate/Set/Get/DestroyActivationDescriptor and
 * cudnnSet/GetActivationDescriptorSwishBeta (cuDNN 9 API reference). */
dnncompatStatus_t dnncompatCreateActivationDescriptor(dnncompatActivationDescriptor_t *activationDesc);
dnncompatStatus_t dnncompatSetActivationDescriptor(dnncompatActivationDescriptor_t activationDesc,
                                                   dnncompatActivationMode_t mode, dnncompatNanPropagation_t reluNanOpt,
                                                   double coef);
dnncompatStatus_t dnncompatGetActivationDescriptor(const dnncompatActivationDescriptor_t activationDesc,
                                                   dnncompatActivationMode_t *mode,
                                                   dnncompatNanPropagation_t *reluNanOpt, double *coef);
dnncompatStatus_t dnncompatSetActivationDescriptorSwishBeta(dnncompatActivationDescriptor_t activationDesc,
                                                            double swish_beta);
dnncompatStatus_t dnncompatGetActivationDescriptorSwishBeta(dnncompatActivationDescriptor_t activationDesc,
                                                            double *swish_beta);
dnncompatStatus_t dnncompatDestroyActivationDescriptor(dnncompatActivationDescriptor_t activationDesc);
/* As cudnnActivationForward: y = alpha * act(x) + beta * y (y not read when beta = 0), x and y of
 * equal dims, any strides, FLOAT, HALF or BFLOAT16 (in place allowed; HALF / BFLOAT16 data are
 * converted to FP32, computed as FLOAT and rounded once: DNNC-DTYPE-HALF, DNNC-DTYPE-BFLOAT16;
 * the same holds for pooling, softmax, LRN and the spatial transformer below). SIGMOID
 * 1/(1+e^-x); RELU max(x, 0); TANH;
 * CLIPPED_RELU min(max(x, 0), coef); ELU x > 0 ? x : coef*(e^x - 1); IDENTITY x; SWISH
 * x*sigmoid(swish_beta*x). RELU and CLIPPED_RELU map a NaN x to 0 under NOT_PROPAGATE_NAN and to
 * NaN under PROPAGATE_NAN; the other modes always propagate NaN. BAD_PARAM: null pointers,
 * invalid or unset descriptors, mismatched dims or types, CLIPPED_RELU with coef < 0.
 * NOT_SUPPORTED: DOUBLE / integer data. */
dnncompatStatus_t dnncompatActivationForward(dnncompatHandle_t handle, dnncompatActivationDescriptor_t activationDesc,
                                             const void *alpha, const dnncompatTensorDescriptor_t xDesc, const void *x,
                                             const void *beta, const dnncompatTensorDescriptor_t yDesc, void *y);
/* As cudnnActivationBackward: dx = alpha * act'(x) * dy + beta * dx, with y = act(x) the forward
 * output (SIGMOID, RELU, TANH, CLIPPED_RELU and ELU differentiate from y; IDENTITY and SWISH from
 * x). All four tensors of equal dims, any strides. Statuses as dnncompatActivationForward. */
dnncompatStatus_t dnncompatActivationBackward(dnncompatHandle_t handle, dnncompatActivationDescriptor_t activationDesc,
                                              const void *alpha, const dnncompatTensorDescriptor_t yDesc, const void *y,
                                              const dnncompatTensorDescriptor_t dyDesc, const void *dy,
                                              const dnncompatTensorDescriptor_t xDesc, const void *x, const void *beta,
                                              const dnncompatTensorDescriptor_t dxDesc, void *dx);

/* Pooling descriptors: window, padding and stride per spatial dim (2-d: height, width).
 * Set: BAD_PARAM for an unknown mode or NaN option, a window or stride below 1, a padding below
 * 0, or nbDims outside [1, DNNCOMPAT_DIM_MAX - 2]. GetNd writes min(nbDimsRequested, nbDims)
 * entries. Get2d of an Nd descriptor with nbDims != 2: BAD_PARAM. As
 * cudnnCreate/Set/Get/DestroyPoolingDescriptor (2d and Nd, cuDNN 9 API reference). */
dnncompatStatus_t dnncompatCreatePoolingDescriptor(dnncompatPoolingDescriptor_t *poolingDesc);
dnncompatStatus_t dnncompatSetPooling2dDescriptor(dnncompatPoolingDescriptor_t poolingDesc, dnncompatPoolingMode_t mode,
                                                  dnncompatNanPropagation_t maxpoolingNanOpt, int windowHeight,
                                                  int windowWidth, int verticalPadding, int horizontalPadding,
                                                  int verticalStride, int horizontalStride);
dnncompatStatus_t dnncompatGetPooling2dDescriptor(const dnncompatPoolingDescriptor_t poolingDesc,
                                                  dnncompatPoolingMode_t *mode,
                                                  dnncompatNanPropagation_t *maxpoolingNanOpt, int *windowHeight,
                                                  int *windowWidth, int *verticalPadding, int *horizontalPadding,
                                                  int *verticalStride, int *horizontalStride);
dnncompatStatus_t dnncompatSetPoolingNdDescriptor(dnncompatPoolingDescriptor_t poolingDesc,
                                                  const dnncompatPoolingMode_t mode,
                                                  const dnncompatNanPropagation_t maxpoolingNanOpt, int nbDims,
                                                  const int windowDimA[], const int paddingA[], const int strideA[]);
dnncompatStatus_t dnncompatGetPoolingNdDescriptor(const dnncompatPoolingDescriptor_t poolingDesc, int nbDimsRequested,
                                                  dnncompatPoolingMode_t *mode,
                                                  dnncompatNanPropagation_t *maxpoolingNanOpt, int *nbDims,
                                                  int windowDimA[], int paddingA[], int strideA[]);
/* As cudnnGetPoolingNdForwardOutputDim / Pooling2dForwardOutputDim: N, C, then per spatial dim
 * 1 + (in + 2*pad - window) / stride (floor), in 64 bits. BAD_PARAM when the tensor's rank is
 * not the descriptor's nbDims + 2 (Nd: nor nbDims), or in + 2*pad < window; NOT_SUPPORTED when
 * an output dim exceeds INT_MAX, nothing written. */
dnncompatStatus_t dnncompatGetPoolingNdForwardOutputDim(const dnncompatPoolingDescriptor_t poolingDesc,
                                                        const dnncompatTensorDescriptor_t inputTensorDesc, int nbDims,
                                                        int outputTensorDimA[]);
dnncompatStatus_t dnncompatGetPooling2dForwardOutputDim(const dnncompatPoolingDescriptor_t poolingDesc,
                                                        const dnncompatTensorDescriptor_t inputTensorDesc, int *n,
                                                        int *c, int *h, int *w);
dnncompatStatus_t dnncompatDestroyPoolingDescriptor(dnncompatPoolingDescriptor_t poolingDesc);
/* As cudnnPoolingForward: y = alpha * pool(x) + beta * y. x [N, C, spatial...] (1 to 3 spatial
 * dims), y [N, C, out...] with out at least 1 (the floor formula of the output-dim query, or
 * larger as in ceil-mode frameworks: the extra windows are padded on the right); any strides.
 * MAX and MAX_DETERMINISTIC never select padding; AVERAGE_COUNT_INCLUDE_PADDING divides by the
 * window size, AVERAGE_COUNT_EXCLUDE_PADDING by the in-bounds cell count. Max pooling with
 * PROPAGATE_NAN gives NaN for a window holding a NaN. BAD_PARAM: null pointers, invalid or unset
 * descriptors, rank or N/C mismatch. NOT_SUPPORTED: DOUBLE / integer data (HALF and BFLOAT16
 * compute in FP32), more than 3 spatial dims, and
 * MAX or EXCLUDE_PADDING pooling where a window lies entirely in padding (see
 * DNNC-POOL-EMPTY-WINDOW). */
dnncompatStatus_t dnncompatPoolingForward(dnncompatHandle_t handle, const dnncompatPoolingDescriptor_t poolingDesc,
                                          const void *alpha, const dnncompatTensorDescriptor_t xDesc, const void *x,
                                          const void *beta, const dnncompatTensorDescriptor_t yDesc, void *y);
/* As cudnnPoolingBackward: dx = alpha * pool'(dy) + beta * dx. y and dy share dims, x and dx
 * share dims. Max pooling routes each dy to the position of its window's maximum in x
 * (recomputed from x: nothing is kept from an earlier forward call). Statuses as
 * dnncompatPoolingForward. */
dnncompatStatus_t dnncompatPoolingBackward(dnncompatHandle_t handle, const dnncompatPoolingDescriptor_t poolingDesc,
                                           const void *alpha, const dnncompatTensorDescriptor_t yDesc, const void *y,
                                           const dnncompatTensorDescriptor_t dyDesc, const void *dy,
                                           const dnncompatTensorDescriptor_t xDesc, const void *x, const void *beta,
                                           const dnncompatTensorDescriptor_t dxDesc, void *dx);

/* As cudnnSoftmaxForward: y = alpha * softmax(x) + beta * y over C*spatial per image (INSTANCE)
 * or over C per image and spatial position (CHANNEL); LOG gives log-softmax. FAST runs the
 * ACCURATE (max-subtracted) algorithm: equal results, and no overflow on large logits
 * (DNNC-SOFTMAX-ALGO-FAST). x, y: equal dims (rank 3 to 8), any strides. BAD_PARAM: null pointers,
 * invalid descriptors, mismatched dims or types, unknown algorithm or mode. NOT_SUPPORTED:
 * DOUBLE / integer data (HALF and BFLOAT16 compute in FP32). */
dnncompatStatus_t dnncompatSoftmaxForward(dnncompatHandle_t handle, dnncompatSoftmaxAlgorithm_t algo,
                                          dnncompatSoftmaxMode_t mode, const void *alpha,
                                          const dnncompatTensorDescriptor_t xDesc, const void *x, const void *beta,
                                          const dnncompatTensorDescriptor_t yDesc, void *y);
/* As cudnnSoftmaxBackward: dx = alpha * (y * (dy - sum(dy * y))) + beta * dx (FAST, ACCURATE),
 * dx = alpha * (dy - exp(y) * sum(dy)) + beta * dx (LOG, y the log-softmax), sums over the mode's
 * axis. Statuses as dnncompatSoftmaxForward. */
dnncompatStatus_t dnncompatSoftmaxBackward(dnncompatHandle_t handle, dnncompatSoftmaxAlgorithm_t algo,
                                           dnncompatSoftmaxMode_t mode, const void *alpha,
                                           const dnncompatTensorDescriptor_t yDesc, const void *y,
                                           const dnncompatTensorDescriptor_t dyDesc, const void *dy, const void *beta,
                                           const dnncompatTensorDescriptor_t dxDesc, void *dx);

/* LRN descriptors. Create sets lrnN 5, lrnAlpha 1e-4, lrnBeta 0.75, lrnK 2. Set: BAD_PARAM when
 * lrnN is outside [DNNCOMPAT_LRN_MIN_N, DNNCOMPAT_LRN_MAX_N], lrnK < DNNCOMPAT_LRN_MIN_K or
 * lrnBeta < DNNCOMPAT_LRN_MIN_BETA (the descriptor is unchanged). Get: any output may be NULL.
 * As cudnnCreate/Set/Get/DestroyLRNDescriptor (cuDNN 9 API reference). */
dnncompatStatus_t dnncompatCreateLRNDescriptor(dnncompatLRNDescriptor_t *normDesc);
dnncompatStatus_t dnncompatSetLRNDescriptor(dnncompatLRNDescriptor_t normDesc, unsigned lrnN, double lrnAlpha,
                                            double lrnBeta, double lrnK);
dnncompatStatus_t dnncompatGetLRNDescriptor(dnncompatLRNDescriptor_t normDesc, unsigned *lrnN, double *lrnAlpha,
                                            double *lrnBeta, double *lrnK);
dnncompatStatus_t dnncompatDestroyLRNDescriptor(dnncompatLRNDescriptor_t lrnDesc);
/* As cudnnLRNCrossChannelForward: y = alpha * x / (k + (lrnAlpha/lrnN) * sum x^2)^lrnBeta + beta * y,
 * the sum over channels c - floor((n-1)/2) .. c + n - 1 - floor((n-1)/2) within [0, C) (one more
 * channel above than below for even n). x, y: equal dims, rank 4 or 5, any strides.
 * BAD_PARAM: null pointers, invalid descriptors, mismatched dims, unknown lrnMode.
 * NOT_SUPPORTED: DOUBLE / integer data (HALF and BFLOAT16 compute in FP32). */
dnncompatStatus_t dnncompatLRNCrossChannelForward(dnncompatHandle_t handle, dnncompatLRNDescriptor_t normDesc,
                                                  dnncompatLRNMode_t lrnMode, const void *alpha,
                                                  const dnncompatTensorDescriptor_t xDesc, const void *x,
                                                  const void *beta, const dnncompatTensorDescriptor_t yDesc, void *y);
/* As cudnnLRNCrossChannelBackward: dx = alpha * dLRN(x)/dx^T dy + beta * dx (y, dy, x, dx equal
 * dims). Statuses as dnncompatLRNCrossChannelForward. */
dnncompatStatus_t dnncompatLRNCrossChannelBackward(dnncompatHandle_t handle, dnncompatLRNDescriptor_t normDesc,
                                                   dnncompatLRNMode_t lrnMode, const void *alpha,
                                                   const dnncompatTensorDescriptor_t yDesc, const void *y,
                                                   const dnncompatTensorDescriptor_t dyDesc, const void *dy,
                                                   const dnncompatTensorDescriptor_t xDesc, const void *x,
                                                   const void *beta, const dnncompatTensorDescriptor_t dxDesc,
                                                   void *dx);
/* As cudnnDivisiveNormalizationForward / Backward: validates like cuDNN (BAD_PARAM for null
 * handle, descriptors, x / y / dy / dx pointers or an unknown mode), then returns NOT_SUPPORTED
 * (DNNC-DIVNORM): cuDNN does not document its spatial averaging window exactly enough to
 * reproduce. */
dnncompatStatus_t dnncompatDivisiveNormalizationForward(dnncompatHandle_t handle, dnncompatLRNDescriptor_t normDesc,
                                                        dnncompatDivNormMode_t mode, const void *alpha,
                                                        const dnncompatTensorDescriptor_t xDesc, const void *x,
                                                        const void *means, void *temp, void *temp2, const void *beta,
                                                        const dnncompatTensorDescriptor_t yDesc, void *y);
dnncompatStatus_t dnncompatDivisiveNormalizationBackward(
    dnncompatHandle_t handle, dnncompatLRNDescriptor_t normDesc, dnncompatDivNormMode_t mode, const void *alpha,
    const dnncompatTensorDescriptor_t xDesc, const void *x, const void *means, const void *dy, void *temp, void *temp2,
    const void *beta, const dnncompatTensorDescriptor_t dXdMeansDesc, void *dx, void *dMeans);

/* Spatial transformer (affine grid generator, bilinear sampler). Coordinates: grids hold
 * normalized (x, y) in [-1, 1] spanning the centers of the corner pixels, pixel x = (x + 1) *
 * (W - 1) / 2 and pixel y = (y + 1) * (H - 1) / 2 (PyTorch's align_corners=true, which PyTorch
 * maps to cuDNN). theta: [N, 2, 3] row-major; grid / dgrid: [N, H, W, 2] packed ((x, y) pairs),
 * H, W the descriptor's output size; theta, grid of the descriptor's data type. */
/* As cudnnCreate/SetSpatialTransformerNdDescriptor/DestroySpatialTransformerDescriptor (cuDNN 9
 * API reference). Set: dimA is the transformed (output) tensor's N, C, H, W. BAD_PARAM: null or
 * invalid descriptor or dimA, unknown samplerType or dataType, nbDims below 4, a dim below 1.
 * NOT_SUPPORTED: nbDims above 4 (DNNC-STF-NBDIMS). */
dnncompatStatus_t dnncompatCreateSpatialTransformerDescriptor(dnncompatSpatialTransformerDescriptor_t *stDesc);
dnncompatStatus_t dnncompatSetSpatialTransformerNdDescriptor(dnncompatSpatialTransformerDescriptor_t stDesc,
                                                             dnncompatSamplerType_t samplerType,
                                                             dnncompatDataType_t dataType, const int nbDims,
                                                             const int dimA[]);
dnncompatStatus_t dnncompatDestroySpatialTransformerDescriptor(dnncompatSpatialTransformerDescriptor_t stDesc);
/* As cudnnSpatialTfGridGeneratorForward: grid[n, h, w] = theta[n] * (x_w, y_h, 1) with
 * x_w = -1 + 2 w / (W - 1), y_h = -1 + 2 h / (H - 1) (0 when W or H is 1). BAD_PARAM: null
 * pointers, invalid or unset handle or descriptor. NOT_SUPPORTED: DOUBLE / integer data (HALF
 * and BFLOAT16 compute in FP32; theta and grid then have the descriptor's type). */
dnncompatStatus_t dnncompatSpatialTfGridGeneratorForward(dnncompatHandle_t handle,
                                                         const dnncompatSpatialTransformerDescriptor_t stDesc,
                                                         const void *theta, void *grid);
/* As cudnnSpatialTfGridGeneratorBackward: dtheta[n] = sum over h, w of dgrid[n, h, w] *
 * (x_w, y_h, 1)^T, overwritten. Statuses as dnncompatSpatialTfGridGeneratorForward. */
dnncompatStatus_t dnncompatSpatialTfGridGeneratorBackward(dnncompatHandle_t handle,
                                                          const dnncompatSpatialTransformerDescriptor_t stDesc,
                                                          const void *dgrid, void *dtheta);
/* As cudnnSpatialTfSamplerForward: y = alpha * bilinear(x, grid) + beta * y (y not read when
 * beta = 0); corners of the bilinear stencil outside x contribute 0 (a point farther than one
 * pixel outside, or with a NaN coordinate, samples 0). x: [N, C, H_in, W_in], y: the
 * descriptor's [N, C, H, W], any strides. BAD_PARAM: null pointers, invalid or unset descriptors,
 * rank, N / C or output dims mismatch, data types differing from the descriptor's. NOT_SUPPORTED:
 * DOUBLE / integer data (HALF and BFLOAT16 compute in FP32). */
dnncompatStatus_t dnncompatSpatialTfSamplerForward(dnncompatHandle_t handle,
                                                   dnncompatSpatialTransformerDescriptor_t stDesc, const void *alpha,
                                                   const dnncompatTensorDescriptor_t xDesc, const void *x,
                                                   const void *grid, const void *beta,
                                                   dnncompatTensorDescriptor_t yDesc, void *y);
/* As cudnnSpatialTfSamplerBackward: dx = alpha * (sampler^T dy) + beta * dx and dgrid =
 * alphaDgrid * (d sample / d grid)^T dy + betaDgrid * dgrid (neither read when its beta = 0).
 * dx as x, dy as y of dnncompatSpatialTfSamplerForward. Statuses as
 * dnncompatSpatialTfSamplerForward (dx must match x). */
dnncompatStatus_t dnncompatSpatialTfSamplerBackward(dnncompatHandle_t handle,
                                                    dnncompatSpatialTransformerDescriptor_t stDesc, const void *alpha,
                                                    const dnncompatTensorDescriptor_t xDesc, const void *x,
                                                    const void *beta, const dnncompatTensorDescriptor_t dxDesc,
                                                    void *dx, const void *alphaDgrid,
                                                    const dnncompatTensorDescriptor_t dyDesc, const void *dy,
                                                    const void *grid, const void *betaDgrid, void *dgrid);

/* end of section pointwise-ops */

/* ------------------------------------------------------------------------------------------ */
/* Tensor operations: add, op, scale, set, transform, reduce (as cudnn_ops.h)                 */
/* ------------------------------------------------------------------------------------------ */

/* Common to every compute call here: tensors of any rank the descriptors allow and any strides;
 * alpha and beta point to float (FLOAT, HALF, BFLOAT16 data); y / C is not read when beta = 0 (it
 * may hold NaN). BAD_PARAM for a null or invalid handle, descriptor or pointer. AddTensor,
 * OpTensor and ReduceTensor (with a FLOAT compute type), ScaleTensor and SetTensor take HALF and
 * BFLOAT16 tensors: converted to FP32, computed as FLOAT, rounded once (support catalogue
 * DNNC-DTYPE-HALF / DNNC-DTYPE-BFLOAT16). DOUBLE and integer data return NOT_SUPPORTED. */

/* As cudnnAddTensor (cuDNN 9 API reference): C = alpha * A + beta * C, A broadcast onto C: equal
 * ranks, each A dim equal to C's or 1 (e.g. a 1xCx1x1 bias onto NxCxHxW; every such pattern runs,
 * also those old cuDNN versions answered NOT_SUPPORTED). BAD_PARAM: ranks differ, an A dim is
 * neither C's nor 1, A and C data types differ. A may share memory with C. */
dnncompatStatus_t dnncompatAddTensor(dnncompatHandle_t handle, const void *alpha,
                                     const dnncompatTensorDescriptor_t aDesc, const void *A, const void *beta,
                                     const dnncompatTensorDescriptor_t cDesc, void *C);

/* As cudnnCreate/Set/Get/DestroyOpTensorDescriptor. Set: BAD_PARAM for an unknown op, compute
 * type or NaN option. Get: BAD_PARAM for an unset descriptor or a null output. Destroy of null
 * does nothing. */
dnncompatStatus_t dnncompatCreateOpTensorDescriptor(dnncompatOpTensorDescriptor_t *opTensorDesc);
dnncompatStatus_t dnncompatSetOpTensorDescriptor(dnncompatOpTensorDescriptor_t opTensorDesc,
                                                 dnncompatOpTensorOp_t opTensorOp, dnncompatDataType_t opTensorCompType,
                                                 dnncompatNanPropagation_t opTensorNanOpt);
dnncompatStatus_t dnncompatGetOpTensorDescriptor(const dnncompatOpTensorDescriptor_t opTensorDesc,
                                                 dnncompatOpTensorOp_t *opTensorOp,
                                                 dnncompatDataType_t *opTensorCompType,
                                                 dnncompatNanPropagation_t *opTensorNanOpt);
dnncompatStatus_t dnncompatDestroyOpTensorDescriptor(dnncompatOpTensorDescriptor_t opTensorDesc);

/* As cudnnOpTensor: C = op(alpha1 * A, alpha2 * B) + beta * C with op ADD, MUL, MIN or MAX;
 * C = sqrt(alpha1 * A) + beta * C (SQRT) or 1 - alpha1 * A + beta * C (NOT), B, bDesc and alpha2
 * ignored. A has C's dims; B is broadcast (each dim C's or 1). In place: C may be A (same
 * strides) or share memory with A or B. MIN/MAX of a NaN follow oneDNN's binary min/max (the
 * NaN option is recorded, not applied). BAD_PARAM: dims or ranks mismatch, data types differ,
 * compute type not FLOAT (DOUBLE for DOUBLE data). */
dnncompatStatus_t dnncompatOpTensor(dnncompatHandle_t handle, const dnncompatOpTensorDescriptor_t opTensorDesc,
                                    const void *alpha1, const dnncompatTensorDescriptor_t aDesc, const void *A,
                                    const void *alpha2, const dnncompatTensorDescriptor_t bDesc, const void *B,
                                    const void *beta, const dnncompatTensorDescriptor_t cDesc, void *C);

/* As cudnnScaleTensor: y = alpha * y for every element yDesc addresses (gaps untouched). */
dnncompatStatus_t dnncompatScaleTensor(dnncompatHandle_t handle, const dnncompatTensorDescriptor_t yDesc, void *y,
                                       const void *alpha);
/* As cudnnSetTensor: y = *valuePtr for every element yDesc addresses (y is not read). valuePtr
 * points to one element of y's data type (a 16-bit value for HALF / BFLOAT16 y). */
dnncompatStatus_t dnncompatSetTensor(dnncompatHandle_t handle, const dnncompatTensorDescriptor_t yDesc, void *y,
                                     const void *valuePtr);

/* As cudnnTransformTensor: y = alpha * x + beta * y, x and y of equal dims and any strides (e.g.
 * NCHW -> NHWC, NCHW <-> NCHW_VECT_C), converting between FLOAT, HALF, BFLOAT16, INT32, INT8,
 * UINT8, INT8x4, UINT8x4 and INT8x32 (rounded once; integers to nearest even, saturated).
 * BAD_PARAM: dims or ranks differ, or data types differ outside that set. NOT_SUPPORTED: other
 * data types, a vectorised type outside NCHW_VECT_C. Overlapping x and y give the result of a
 * copy of x taken first. */
dnncompatStatus_t dnncompatTransformTensor(dnncompatHandle_t handle, const void *alpha,
                                           const dnncompatTensorDescriptor_t xDesc, const void *x, const void *beta,
                                           const dnncompatTensorDescriptor_t yDesc, void *y);

/* As cudnnCreate/Set/Get/DestroyTensorTransformDescriptor. Set: nbDims in [3, DNNCOMPAT_DIM_MAX];
 * padBeforeA / padAfterA: nbDims entries >= 0 or null (no padding); foldA: nbDims - 2 entries
 * >= 1 or null (no folding); BAD_PARAM otherwise or for an unknown format or direction. Get
 * writes min(nbDimsRequested, nbDims) entries of each non-null array. */
dnncompatStatus_t dnncompatCreateTensorTransformDescriptor(dnncompatTensorTransformDescriptor_t *transformDesc);
dnncompatStatus_t dnncompatSetTensorTransformDescriptor(dnncompatTensorTransformDescriptor_t transformDesc,
                                                        const uint32_t nbDims, const dnncompatTensorFormat_t destFormat,
                                                        const int32_t padBeforeA[], const int32_t padAfterA[],
                                                        const uint32_t foldA[],
                                                        const dnncompatFoldingDirection_t direction);
dnncompatStatus_t dnncompatGetTensorTransformDescriptor(dnncompatTensorTransformDescriptor_t transformDesc,
                                                        uint32_t nbDimsRequested, dnncompatTensorFormat_t *destFormat,
                                                        int32_t padBeforeA[], int32_t padAfterA[], uint32_t foldA[],
                                                        dnncompatFoldingDirection_t *direction);
dnncompatStatus_t dnncompatDestroyTensorTransformDescriptor(dnncompatTensorTransformDescriptor_t transformDesc);
/* As cudnnInitTransformDest: sets destDesc to srcDesc's dims plus the padding, packed in the
 * descriptor's destFormat, srcDesc's data type; *destSizeInBytes = its size. BAD_PARAM: ranks
 * differ, a byte size overflowing 64 bits. NOT_SUPPORTED: folding
 * (DNNC-TENSOROPS-TRANSFORM-FOLD), NCHW_VECT_C, a padded dimension over INT_MAX. */
dnncompatStatus_t dnncompatInitTransformDest(const dnncompatTensorTransformDescriptor_t transformDesc,
                                             const dnncompatTensorDescriptor_t srcDesc,
                                             dnncompatTensorDescriptor_t destDesc, size_t *destSizeInBytes);
/* As cudnnTransformTensorEx: dest = alpha * pad(src) + beta * dest, pad(src) being src placed at
 * offset padBeforeA with zeros around it; data types and layouts convert as in
 * dnncompatTransformTensor. BAD_PARAM: dest dims not src dims plus padding, ranks differ.
 * NOT_SUPPORTED: folding (fold != 1, DNNC-TENSOROPS-TRANSFORM-FOLD). */
dnncompatStatus_t dnncompatTransformTensorEx(dnncompatHandle_t handle,
                                             const dnncompatTensorTransformDescriptor_t transDesc, const void *alpha,
                                             const dnncompatTensorDescriptor_t srcDesc, const void *srcData,
                                             const void *beta, const dnncompatTensorDescriptor_t destDesc,
                                             void *destData);

/* As cudnnCreate/Set/Get/DestroyReduceTensorDescriptor. Set: BAD_PARAM for any unknown enum
 * value. Indices are always 32-bit unsigned, as in cuDNN (the indices type is recorded). */
dnncompatStatus_t dnncompatCreateReduceTensorDescriptor(dnncompatReduceTensorDescriptor_t *reduceTensorDesc);
dnncompatStatus_t dnncompatSetReduceTensorDescriptor(dnncompatReduceTensorDescriptor_t reduceTensorDesc,
                                                     dnncompatReduceTensorOp_t reduceTensorOp,
                                                     dnncompatDataType_t reduceTensorCompType,
                                                     dnncompatNanPropagation_t reduceTensorNanOpt,
                                                     dnncompatReduceTensorIndices_t reduceTensorIndices,
                                                     dnncompatIndicesType_t reduceTensorIndicesType);
dnncompatStatus_t dnncompatGetReduceTensorDescriptor(const dnncompatReduceTensorDescriptor_t reduceTensorDesc,
                                                     dnncompatReduceTensorOp_t *reduceTensorOp,
                                                     dnncompatDataType_t *reduceTensorCompType,
                                                     dnncompatNanPropagation_t *reduceTensorNanOpt,
                                                     dnncompatReduceTensorIndices_t *reduceTensorIndices,
                                                     dnncompatIndicesType_t *reduceTensorIndicesType);
dnncompatStatus_t dnncompatDestroyReduceTensorDescriptor(dnncompatReduceTensorDescriptor_t reduceTensorDesc);
/* As cudnnGetReductionIndicesSize: 4 bytes per element of C when the descriptor asks for
 * FLATTENED_INDICES and the op is MIN, MAX or AMAX, else 0. BAD_PARAM as dnncompatReduceTensor. */
dnncompatStatus_t dnncompatGetReductionIndicesSize(dnncompatHandle_t handle,
                                                   const dnncompatReduceTensorDescriptor_t reduceTensorDesc,
                                                   const dnncompatTensorDescriptor_t aDesc,
                                                   const dnncompatTensorDescriptor_t cDesc, size_t *sizeInBytes);
/* As cudnnGetReductionWorkspaceSize: 0 (intermediates live in the handle). */
dnncompatStatus_t dnncompatGetReductionWorkspaceSize(dnncompatHandle_t handle,
                                                     const dnncompatReduceTensorDescriptor_t reduceTensorDesc,
                                                     const dnncompatTensorDescriptor_t aDesc,
                                                     const dnncompatTensorDescriptor_t cDesc, size_t *sizeInBytes);
/* As cudnnReduceTensor: C = alpha * reduce(A) + beta * C, reducing the dims where C is 1: ADD
 * (sum), MUL (product), MIN, MAX, AMAX (max |a|), AVG (mean), NORM1 (sum |a|), NORM2
 * (sqrt(sum a^2)), MUL_NO_ZEROS (product of the non-zero elements; 1 when all are zero). With
 * FLATTENED_INDICES and MIN/MAX/AMAX, indices[i] (uint32) is the position of C[i]'s extreme element
 * within its window, row-major over the reduced dims (first one on ties; NaN: PROPAGATE_NAN
 * takes the first NaN, NOT_PROPAGATE_NAN skips NaNs; without indices, MIN/MAX/AMAX of a NaN
 * follow oneDNN's reduction and the NaN option is recorded only). The workspace is not used.
 * BAD_PARAM: ranks differ, a C dim neither A's nor 1, data types differ, compute type neither
 * FLOAT nor DOUBLE, indices null or indicesSizeInBytes below dnncompatGetReductionIndicesSize.
 * NOT_SUPPORTED (also from the size queries): FLATTENED_INDICES for a window of more than 2^32
 * elements, whose positions a uint32 cannot hold. */
dnncompatStatus_t dnncompatReduceTensor(dnncompatHandle_t handle,
                                        const dnncompatReduceTensorDescriptor_t reduceTensorDesc, void *indices,
                                        size_t indicesSizeInBytes, void *workspace, size_t workspaceSizeInBytes,
                                        const void *alpha, const dnncompatTensorDescriptor_t aDesc, const void *A,
                                        const void *beta, const dnncompatTensorDescriptor_t cDesc, void *C);

/* end of section tensor-ops */

/* ------------------------------------------------------------------------------------------ */
/* graph (backend) API: cudnn_graph.h's cudnnBackend* functions and their enums                 */
/* ------------------------------------------------------------------------------------------ */

/* A backend descriptor (cuDNN 9 API reference, "Backend Descriptor Types"): an opaque object
 * made by dnncompatBackendCreateDescriptor, filled by SetAttribute, validated by Finalize and read
 * by GetAttribute. A descriptor that another one refers to (a tensor in an operation, an operation
 * in a graph) may be destroyed once the referring one is finalized: the referring one keeps what
 * it needs. The "operation graph → engine heuristics → engine config → execution plan → variant
 * pack → execute" sequence runs the graph on oneDNN; docs/graph-api.md says what each descriptor
 * type, operation and mode maps to. */
typedef void *dnncompatBackendDescriptor_t;
/* A CUDA graph stands in as an opaque value: dnncompat has no CUDA graphs. */
typedef struct dnncompatCudaGraphOpaque *dnncompatCudaGraph_t;

/* CUDNN_TYPE_FRACTION's element, as cudnnFraction_t. */
typedef struct dnncompatFractionStruct {
    int64_t numerator;
    int64_t denominator;
} dnncompatFraction_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_POINTWISE_ADD = 0,
    DNNCOMPAT_POINTWISE_ADD_SQUARE = 5,
    DNNCOMPAT_POINTWISE_DIV = 6,
    DNNCOMPAT_POINTWISE_MAX = 3,
    DNNCOMPAT_POINTWISE_MIN = 2,
    DNNCOMPAT_POINTWISE_MOD = 7,
    DNNCOMPAT_POINTWISE_MUL = 1,
    DNNCOMPAT_POINTWISE_POW = 8,
    DNNCOMPAT_POINTWISE_SUB = 9,
    DNNCOMPAT_POINTWISE_ABS = 10,
    DNNCOMPAT_POINTWISE_CEIL = 11,
    DNNCOMPAT_POINTWISE_COS = 12,
    DNNCOMPAT_POINTWISE_EXP = 13,
    DNNCOMPAT_POINTWISE_FLOOR = 14,
    DNNCOMPAT_POINTWISE_LOG = 15,
    DNNCOMPAT_POINTWISE_NEG = 16,
    DNNCOMPAT_POINTWISE_RSQRT = 17,
    DNNCOMPAT_POINTWISE_SIN = 18,
    DNNCOMPAT_POINTWISE_SQRT = 4,
    DNNCOMPAT_POINTWISE_TAN = 19,
    DNNCOMPAT_POINTWISE_ERF = 20,
    DNNCOMPAT_POINTWISE_IDENTITY = 21,
    DNNCOMPAT_POINTWISE_RECIPROCAL = 22,
    DNNCOMPAT_POINTWISE_ATAN2 = 23,
    DNNCOMPAT_POINTWISE_RELU_FWD = 100,
    DNNCOMPAT_POINTWISE_TANH_FWD = 101,
    DNNCOMPAT_POINTWISE_SIGMOID_FWD = 102,
    DNNCOMPAT_POINTWISE_ELU_FWD = 103,
    DNNCOMPAT_POINTWISE_GELU_FWD = 104,
    DNNCOMPAT_POINTWISE_SOFTPLUS_FWD = 105,
    DNNCOMPAT_POINTWISE_SWISH_FWD = 106,
    DNNCOMPAT_POINTWISE_GELU_APPROX_TANH_FWD = 107,
    DNNCOMPAT_POINTWISE_RELU_BWD = 200,
    DNNCOMPAT_POINTWISE_TANH_BWD = 201,
    DNNCOMPAT_POINTWISE_SIGMOID_BWD = 202,
    DNNCOMPAT_POINTWISE_ELU_BWD = 203,
    DNNCOMPAT_POINTWISE_GELU_BWD = 204,
    DNNCOMPAT_POINTWISE_SOFTPLUS_BWD = 205,
    DNNCOMPAT_POINTWISE_SWISH_BWD = 206,
    DNNCOMPAT_POINTWISE_GELU_APPROX_TANH_BWD = 207,
    DNNCOMPAT_POINTWISE_CMP_EQ = 300,
    DNNCOMPAT_POINTWISE_CMP_NEQ = 301,
    DNNCOMPAT_POINTWISE_CMP_GT = 302,
    DNNCOMPAT_POINTWISE_CMP_GE = 303,
    DNNCOMPAT_POINTWISE_CMP_LT = 304,
    DNNCOMPAT_POINTWISE_CMP_LE = 305,
    DNNCOMPAT_POINTWISE_LOGICAL_AND = 400,
    DNNCOMPAT_POINTWISE_LOGICAL_OR = 401,
    DNNCOMPAT_POINTWISE_LOGICAL_NOT = 402,
    DNNCOMPAT_POINTWISE_GEN_INDEX = 501,
    DNNCOMPAT_POINTWISE_BINARY_SELECT = 601,
} dnncompatPointwiseMode_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_RESAMPLE_NEAREST = 0,
    DNNCOMPAT_RESAMPLE_BILINEAR = 1,
    DNNCOMPAT_RESAMPLE_AVGPOOL = 2,
    DNNCOMPAT_RESAMPLE_AVGPOOL_INCLUDE_PADDING = 2,
    DNNCOMPAT_RESAMPLE_AVGPOOL_EXCLUDE_PADDING = 4,
    DNNCOMPAT_RESAMPLE_MAXPOOL = 3,
} dnncompatResampleMode_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_SIGNAL_SET = 0,
    DNNCOMPAT_SIGNAL_WAIT = 1,
} dnncompatSignalMode_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_GENSTATS_SUM_SQSUM = 0,
} dnncompatGenStatsMode_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_BN_FINALIZE_STATISTICS_TRAINING = 0,
    DNNCOMPAT_BN_FINALIZE_STATISTICS_INFERENCE = 1,
} dnncompatBnFinalizeStatsMode_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_RNG_DISTRIBUTION_BERNOULLI = 0,
    DNNCOMPAT_RNG_DISTRIBUTION_UNIFORM = 1,
    DNNCOMPAT_RNG_DISTRIBUTION_NORMAL = 2,
} dnncompatRngDistribution_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_MOE_GROUPED_MATMUL_MODE_NONE = 0,
    DNNCOMPAT_MOE_GROUPED_MATMUL_MODE_GATHER = 1,
    DNNCOMPAT_MOE_GROUPED_MATMUL_MODE_SCATTER = 2,
} dnncompatMoeGroupedMatmulMode_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_ATTR_POINTWISE_MODE = 0,
    DNNCOMPAT_ATTR_POINTWISE_MATH_PREC = 1,
    DNNCOMPAT_ATTR_POINTWISE_NAN_PROPAGATION = 2, /* deprecated in cuDNN 9 */
    DNNCOMPAT_ATTR_POINTWISE_RELU_LOWER_CLIP = 3,
    DNNCOMPAT_ATTR_POINTWISE_RELU_UPPER_CLIP = 4,
    DNNCOMPAT_ATTR_POINTWISE_RELU_LOWER_CLIP_SLOPE = 5,
    DNNCOMPAT_ATTR_POINTWISE_ELU_ALPHA = 6,
    DNNCOMPAT_ATTR_POINTWISE_SOFTPLUS_BETA = 7,
    DNNCOMPAT_ATTR_POINTWISE_SWISH_BETA = 8,
    DNNCOMPAT_ATTR_POINTWISE_AXIS = 9,
    DNNCOMPAT_ATTR_CONVOLUTION_COMP_TYPE = 100,
    DNNCOMPAT_ATTR_CONVOLUTION_CONV_MODE = 101,
    DNNCOMPAT_ATTR_CONVOLUTION_DILATIONS = 102,
    DNNCOMPAT_ATTR_CONVOLUTION_FILTER_STRIDES = 103,
    DNNCOMPAT_ATTR_CONVOLUTION_POST_PADDINGS = 104,
    DNNCOMPAT_ATTR_CONVOLUTION_PRE_PADDINGS = 105,
    DNNCOMPAT_ATTR_CONVOLUTION_SPATIAL_DIMS = 106,
    DNNCOMPAT_ATTR_ENGINEHEUR_MODE = 200,
    DNNCOMPAT_ATTR_ENGINEHEUR_OPERATION_GRAPH = 201,
    DNNCOMPAT_ATTR_ENGINEHEUR_RESULTS = 202,
    DNNCOMPAT_ATTR_ENGINEHEUR_SM_COUNT_TARGET = 203,
    DNNCOMPAT_ATTR_ENGINEHEUR_DEVICEPROP = 204,
    DNNCOMPAT_ATTR_ENGINECFG_ENGINE = 300,
    DNNCOMPAT_ATTR_ENGINECFG_INTERMEDIATE_INFO = 301,
    DNNCOMPAT_ATTR_ENGINECFG_KNOB_CHOICES = 302,
    DNNCOMPAT_ATTR_ENGINECFG_WORKSPACE_SIZE = 303,
    DNNCOMPAT_ATTR_ENGINECFG_SHARED_MEMORY_USED = 304,
    DNNCOMPAT_ATTR_EXECUTION_PLAN_HANDLE = 400, /* deprecated in cuDNN 9 */
    DNNCOMPAT_ATTR_EXECUTION_PLAN_ENGINE_CONFIG = 401,
    DNNCOMPAT_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE = 402,
    DNNCOMPAT_ATTR_EXECUTION_PLAN_COMPUTED_INTERMEDIATE_UIDS = 403,
    DNNCOMPAT_ATTR_EXECUTION_PLAN_RUN_ONLY_INTERMEDIATE_UIDS = 404,
    DNNCOMPAT_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION = 405,
    DNNCOMPAT_ATTR_EXECUTION_PLAN_KERNEL_CACHE = 406,
    DNNCOMPAT_ATTR_EXECUTION_PLAN_DEVICEPROP = 407,
    DNNCOMPAT_ATTR_INTERMEDIATE_INFO_UNIQUE_ID = 500,
    DNNCOMPAT_ATTR_INTERMEDIATE_INFO_SIZE = 501,
    DNNCOMPAT_ATTR_INTERMEDIATE_INFO_DEPENDENT_DATA_UIDS = 502,
    DNNCOMPAT_ATTR_INTERMEDIATE_INFO_DEPENDENT_ATTRIBUTES = 503,
    DNNCOMPAT_ATTR_KNOB_CHOICE_KNOB_TYPE = 600,
    DNNCOMPAT_ATTR_KNOB_CHOICE_KNOB_VALUE = 601,
    DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA = 700,
    DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA = 701,
    DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC = 702,
    DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_W = 703,
    DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_X = 704,
    DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_FORWARD_Y = 705,
    DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA = 706,
    DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA = 707,
    DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC = 708,
    DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W = 709,
    DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX = 710,
    DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY = 711,
    DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA = 712,
    DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA = 713,
    DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC = 714,
    DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW = 715,
    DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X = 716,
    DNNCOMPAT_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY = 717,
    DNNCOMPAT_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR = 750,
    DNNCOMPAT_ATTR_OPERATION_POINTWISE_XDESC = 751,
    DNNCOMPAT_ATTR_OPERATION_POINTWISE_BDESC = 752,
    DNNCOMPAT_ATTR_OPERATION_POINTWISE_YDESC = 753,
    DNNCOMPAT_ATTR_OPERATION_POINTWISE_ALPHA1 = 754,
    DNNCOMPAT_ATTR_OPERATION_POINTWISE_ALPHA2 = 755,
    DNNCOMPAT_ATTR_OPERATION_POINTWISE_DXDESC = 756,
    DNNCOMPAT_ATTR_OPERATION_POINTWISE_DYDESC = 757,
    DNNCOMPAT_ATTR_OPERATION_POINTWISE_TDESC = 758,
    DNNCOMPAT_ATTR_OPERATION_GENSTATS_MODE = 770,
    DNNCOMPAT_ATTR_OPERATION_GENSTATS_MATH_PREC = 771,
    DNNCOMPAT_ATTR_OPERATION_GENSTATS_XDESC = 772,
    DNNCOMPAT_ATTR_OPERATION_GENSTATS_SUMDESC = 773,
    DNNCOMPAT_ATTR_OPERATION_GENSTATS_SQSUMDESC = 774,
    DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_STATS_MODE = 780,
    DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_MATH_PREC = 781,
    DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_Y_SUM_DESC = 782,
    DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_Y_SQ_SUM_DESC = 783,
    DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_SCALE_DESC = 784,
    DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_BIAS_DESC = 785,
    DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_MEAN_DESC = 786,
    DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_PREV_RUNNING_VAR_DESC = 787,
    DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_UPDATED_RUNNING_MEAN_DESC = 788,
    DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_UPDATED_RUNNING_VAR_DESC = 789,
    DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_SAVED_MEAN_DESC = 790,
    DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_SAVED_INV_STD_DESC = 791,
    DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_EQ_SCALE_DESC = 792,
    DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_EQ_BIAS_DESC = 793,
    DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_ACCUM_COUNT_DESC = 794,
    DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_EPSILON_DESC = 795,
    DNNCOMPAT_ATTR_OPERATION_BN_FINALIZE_EXP_AVERATE_FACTOR_DESC = 796,
    DNNCOMPAT_ATTR_OPERATIONGRAPH_HANDLE = 800, /* deprecated in cuDNN 9 */
    DNNCOMPAT_ATTR_OPERATIONGRAPH_OPS = 801,
    DNNCOMPAT_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT = 802,
    DNNCOMPAT_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED = 803,
    DNNCOMPAT_ATTR_OPERATIONGRAPH_IS_SAME_TOPOLOGY = 804,
    DNNCOMPAT_ATTR_TENSOR_BYTE_ALIGNMENT = 900,
    DNNCOMPAT_ATTR_TENSOR_DATA_TYPE = 901,
    DNNCOMPAT_ATTR_TENSOR_DIMENSIONS = 902,
    DNNCOMPAT_ATTR_TENSOR_STRIDES = 903,
    DNNCOMPAT_ATTR_TENSOR_VECTOR_COUNT = 904,
    DNNCOMPAT_ATTR_TENSOR_VECTORIZED_DIMENSION = 905,
    DNNCOMPAT_ATTR_TENSOR_UNIQUE_ID = 906,
    DNNCOMPAT_ATTR_TENSOR_IS_VIRTUAL = 907,
    DNNCOMPAT_ATTR_TENSOR_IS_BY_VALUE = 908,
    DNNCOMPAT_ATTR_TENSOR_REORDERING_MODE = 909,
    DNNCOMPAT_ATTR_TENSOR_RAGGED_OFFSET_DESC = 913,
    DNNCOMPAT_ATTR_VARIANT_PACK_UNIQUE_IDS = 1000,
    DNNCOMPAT_ATTR_VARIANT_PACK_DATA_POINTERS = 1001,
    DNNCOMPAT_ATTR_VARIANT_PACK_INTERMEDIATES = 1002,
    DNNCOMPAT_ATTR_VARIANT_PACK_WORKSPACE = 1003,
    DNNCOMPAT_ATTR_VARIANT_PACK_OVERRIDE_UNIQUE_IDS = 1010,
    DNNCOMPAT_ATTR_VARIANT_PACK_OVERRIDE_SHAPES = 1011,
    DNNCOMPAT_ATTR_VARIANT_PACK_OVERRIDE_STRIDES = 1012,
    DNNCOMPAT_ATTR_LAYOUT_INFO_TENSOR_UID = 1100,
    DNNCOMPAT_ATTR_LAYOUT_INFO_TYPES = 1101,
    DNNCOMPAT_ATTR_KNOB_INFO_TYPE = 1200,
    DNNCOMPAT_ATTR_KNOB_INFO_MAXIMUM_VALUE = 1201,
    DNNCOMPAT_ATTR_KNOB_INFO_MINIMUM_VALUE = 1202,
    DNNCOMPAT_ATTR_KNOB_INFO_STRIDE = 1203,
    DNNCOMPAT_ATTR_ENGINE_OPERATION_GRAPH = 1300,
    DNNCOMPAT_ATTR_ENGINE_GLOBAL_INDEX = 1301,
    DNNCOMPAT_ATTR_ENGINE_KNOB_INFO = 1302,
    DNNCOMPAT_ATTR_ENGINE_NUMERICAL_NOTE = 1303,
    DNNCOMPAT_ATTR_ENGINE_LAYOUT_INFO = 1304,
    DNNCOMPAT_ATTR_ENGINE_BEHAVIOR_NOTE = 1305,
    DNNCOMPAT_ATTR_ENGINE_SM_COUNT_TARGET = 1306,
    DNNCOMPAT_ATTR_ENGINE_DEVICEPROP = 1307,
    DNNCOMPAT_ATTR_ENGINE_DISABLE_CLUSTER_COOPERATIVE = 1308,
    DNNCOMPAT_ATTR_MATMUL_COMP_TYPE = 1500,
    DNNCOMPAT_ATTR_MATMUL_PADDING_VALUE = 1503,
    DNNCOMPAT_ATTR_OPERATION_MATMUL_ADESC = 1520,
    DNNCOMPAT_ATTR_OPERATION_MATMUL_BDESC = 1521,
    DNNCOMPAT_ATTR_OPERATION_MATMUL_CDESC = 1522,
    DNNCOMPAT_ATTR_OPERATION_MATMUL_DESC = 1523,
    DNNCOMPAT_ATTR_OPERATION_MATMUL_IRREGULARLY_STRIDED_BATCH_COUNT = 1524, /* deprecated in cuDNN 9 */
    DNNCOMPAT_ATTR_OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC = 1525,
    DNNCOMPAT_ATTR_OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC = 1526,
    DNNCOMPAT_ATTR_OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC = 1527,
    DNNCOMPAT_ATTR_REDUCTION_OPERATOR = 1600,
    DNNCOMPAT_ATTR_REDUCTION_COMP_TYPE = 1601,
    DNNCOMPAT_ATTR_REDUCTION_IS_DETERMINISTIC = 1602,
    DNNCOMPAT_ATTR_OPERATION_REDUCTION_XDESC = 1610,
    DNNCOMPAT_ATTR_OPERATION_REDUCTION_YDESC = 1611,
    DNNCOMPAT_ATTR_OPERATION_REDUCTION_DESC = 1612,
    DNNCOMPAT_ATTR_OPERATION_BN_BWD_WEIGHTS_MATH_PREC = 1620,
    DNNCOMPAT_ATTR_OPERATION_BN_BWD_WEIGHTS_MEAN_DESC = 1621,
    DNNCOMPAT_ATTR_OPERATION_BN_BWD_WEIGHTS_INVSTD_DESC = 1622,
    DNNCOMPAT_ATTR_OPERATION_BN_BWD_WEIGHTS_BN_SCALE_DESC = 1623,
    DNNCOMPAT_ATTR_OPERATION_BN_BWD_WEIGHTS_X_DESC = 1624,
    DNNCOMPAT_ATTR_OPERATION_BN_BWD_WEIGHTS_DY_DESC = 1625,
    DNNCOMPAT_ATTR_OPERATION_BN_BWD_WEIGHTS_DBN_SCALE_DESC = 1626,
    DNNCOMPAT_ATTR_OPERATION_BN_BWD_WEIGHTS_DBN_BIAS_DESC = 1627,
    DNNCOMPAT_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_DY_SCALE_DESC = 1628,
    DNNCOMPAT_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_X_SCALE_DESC = 1629,
    DNNCOMPAT_ATTR_OPERATION_BN_BWD_WEIGHTS_EQ_BIAS = 1630,
    DNNCOMPAT_ATTR_RESAMPLE_MODE = 1700,
    DNNCOMPAT_ATTR_RESAMPLE_COMP_TYPE = 1701,
    DNNCOMPAT_ATTR_RESAMPLE_SPATIAL_DIMS = 1702,
    DNNCOMPAT_ATTR_RESAMPLE_POST_PADDINGS = 1703,
    DNNCOMPAT_ATTR_RESAMPLE_PRE_PADDINGS = 1704,
    DNNCOMPAT_ATTR_RESAMPLE_STRIDES = 1705,
    DNNCOMPAT_ATTR_RESAMPLE_WINDOW_DIMS = 1706,
    DNNCOMPAT_ATTR_RESAMPLE_NAN_PROPAGATION = 1707,
    DNNCOMPAT_ATTR_RESAMPLE_PADDING_MODE = 1708,
    DNNCOMPAT_ATTR_OPERATION_RESAMPLE_FWD_XDESC = 1710,
    DNNCOMPAT_ATTR_OPERATION_RESAMPLE_FWD_YDESC = 1711,
    DNNCOMPAT_ATTR_OPERATION_RESAMPLE_FWD_IDXDESC = 1712,
    DNNCOMPAT_ATTR_OPERATION_RESAMPLE_FWD_ALPHA = 1713, /* deprecated in cuDNN 9 */
    DNNCOMPAT_ATTR_OPERATION_RESAMPLE_FWD_BETA = 1714,  /* deprecated in cuDNN 9 */
    DNNCOMPAT_ATTR_OPERATION_RESAMPLE_FWD_DESC = 1716,
    DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_DXDESC = 1720,
    DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_DYDESC = 1721,
    DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_IDXDESC = 1722,
    DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_ALPHA = 1723, /* deprecated in cuDNN 9 */
    DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_BETA = 1724,  /* deprecated in cuDNN 9 */
    DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_DESC = 1725,
    DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_XDESC = 1726,
    DNNCOMPAT_ATTR_OPERATION_RESAMPLE_BWD_YDESC = 1727,
    DNNCOMPAT_ATTR_OPERATION_CONCAT_AXIS = 1800,
    DNNCOMPAT_ATTR_OPERATION_CONCAT_INPUT_DESCS = 1801,
    DNNCOMPAT_ATTR_OPERATION_CONCAT_INPLACE_INDEX = 1802,
    DNNCOMPAT_ATTR_OPERATION_CONCAT_OUTPUT_DESC = 1803,
    DNNCOMPAT_ATTR_OPERATION_SIGNAL_MODE = 1900,
    DNNCOMPAT_ATTR_OPERATION_SIGNAL_FLAGDESC = 1901,
    DNNCOMPAT_ATTR_OPERATION_SIGNAL_VALUE = 1902,
    DNNCOMPAT_ATTR_OPERATION_SIGNAL_XDESC = 1903,
    DNNCOMPAT_ATTR_OPERATION_SIGNAL_YDESC = 1904,
    DNNCOMPAT_ATTR_OPERATION_PAGED_CACHE_LOAD_CONTAINER_DESC = 1950,
    DNNCOMPAT_ATTR_OPERATION_PAGED_CACHE_LOAD_YDESC = 1951,
    DNNCOMPAT_ATTR_OPERATION_PAGED_CACHE_LOAD_SEQUENCE_DESC = 1952,
    DNNCOMPAT_ATTR_OPERATION_PAGED_CACHE_LOAD_PAGE_TABLE_DESC = 1953,
    DNNCOMPAT_ATTR_OPERATION_NORM_FWD_MODE = 2000,
    DNNCOMPAT_ATTR_OPERATION_NORM_FWD_PHASE = 2001,
    DNNCOMPAT_ATTR_OPERATION_NORM_FWD_XDESC = 2002,
    DNNCOMPAT_ATTR_OPERATION_NORM_FWD_MEAN_DESC = 2003,
    DNNCOMPAT_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC = 2004,
    DNNCOMPAT_ATTR_OPERATION_NORM_FWD_SCALE_DESC = 2005,
    DNNCOMPAT_ATTR_OPERATION_NORM_FWD_BIAS_DESC = 2006,
    DNNCOMPAT_ATTR_OPERATION_NORM_FWD_EPSILON_DESC = 2007,
    DNNCOMPAT_ATTR_OPERATION_NORM_FWD_EXP_AVG_FACTOR_DESC = 2008,
    DNNCOMPAT_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_MEAN_DESC = 2009,
    DNNCOMPAT_ATTR_OPERATION_NORM_FWD_INPUT_RUNNING_VAR_DESC = 2010,
    DNNCOMPAT_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_MEAN_DESC = 2011,
    DNNCOMPAT_ATTR_OPERATION_NORM_FWD_OUTPUT_RUNNING_VAR_DESC = 2012,
    DNNCOMPAT_ATTR_OPERATION_NORM_FWD_YDESC = 2013,
    DNNCOMPAT_ATTR_OPERATION_NORM_FWD_PEER_STAT_DESCS = 2014,
    DNNCOMPAT_ATTR_OPERATION_NORM_BWD_MODE = 2100,
    DNNCOMPAT_ATTR_OPERATION_NORM_BWD_XDESC = 2101,
    DNNCOMPAT_ATTR_OPERATION_NORM_BWD_MEAN_DESC = 2102,
    DNNCOMPAT_ATTR_OPERATION_NORM_BWD_INV_VARIANCE_DESC = 2103,
    DNNCOMPAT_ATTR_OPERATION_NORM_BWD_DYDESC = 2104,
    DNNCOMPAT_ATTR_OPERATION_NORM_BWD_SCALE_DESC = 2105,
    DNNCOMPAT_ATTR_OPERATION_NORM_BWD_EPSILON_DESC = 2106,
    DNNCOMPAT_ATTR_OPERATION_NORM_BWD_DSCALE_DESC = 2107,
    DNNCOMPAT_ATTR_OPERATION_NORM_BWD_DBIAS_DESC = 2108,
    DNNCOMPAT_ATTR_OPERATION_NORM_BWD_DXDESC = 2109,
    DNNCOMPAT_ATTR_OPERATION_NORM_BWD_PEER_STAT_DESCS = 2110,
    DNNCOMPAT_ATTR_OPERATION_RESHAPE_XDESC = 2200,
    DNNCOMPAT_ATTR_OPERATION_RESHAPE_YDESC = 2201,
    DNNCOMPAT_ATTR_OPERATION_EXPAND_BAND_MATRIX_XDESC = 2250,
    DNNCOMPAT_ATTR_OPERATION_EXPAND_BAND_MATRIX_YDESC = 2251,
    DNNCOMPAT_ATTR_OPERATION_EXPAND_BAND_MATRIX_LOWER_BANDWIDTH = 2252,
    DNNCOMPAT_ATTR_OPERATION_EXPAND_BAND_MATRIX_UPPER_BANDWIDTH = 2253,
    DNNCOMPAT_ATTR_OPERATION_EXPAND_BAND_MATRIX_AXIS = 2254,
    DNNCOMPAT_ATTR_OPERATION_EXPAND_BAND_MATRIX_PAD_VALUE = 2255,
    DNNCOMPAT_ATTR_OPERATION_EXPAND_BAND_MATRIX_KV_TOKEN_OFFSET_DESC = 2256,
    DNNCOMPAT_ATTR_OPERATION_EXPAND_BAND_MATRIX_SPECULATIVE_MASK_DESC = 2257,
    DNNCOMPAT_ATTR_OPERATION_CONTRACT_BAND_MATRIX_XDESC = 2270,
    DNNCOMPAT_ATTR_OPERATION_CONTRACT_BAND_MATRIX_YDESC = 2271,
    DNNCOMPAT_ATTR_OPERATION_CONTRACT_BAND_MATRIX_LOWER_BANDWIDTH = 2272,
    DNNCOMPAT_ATTR_OPERATION_CONTRACT_BAND_MATRIX_UPPER_BANDWIDTH = 2273,
    DNNCOMPAT_ATTR_OPERATION_CONTRACT_BAND_MATRIX_AXIS = 2274,
    DNNCOMPAT_ATTR_OPERATION_CONTRACT_BAND_MATRIX_PAD_VALUE = 2275,
    DNNCOMPAT_ATTR_OPERATION_CONTRACT_BAND_MAX_TOKEN_VALUE = 2276,
    DNNCOMPAT_ATTR_RNG_DISTRIBUTION = 2300,
    DNNCOMPAT_ATTR_RNG_NORMAL_DIST_MEAN = 2301,
    DNNCOMPAT_ATTR_RNG_NORMAL_DIST_STANDARD_DEVIATION = 2302,
    DNNCOMPAT_ATTR_RNG_UNIFORM_DIST_MAXIMUM = 2303,
    DNNCOMPAT_ATTR_RNG_UNIFORM_DIST_MINIMUM = 2304,
    DNNCOMPAT_ATTR_RNG_BERNOULLI_DIST_PROBABILITY = 2305,
    DNNCOMPAT_ATTR_OPERATION_RNG_YDESC = 2310,
    DNNCOMPAT_ATTR_OPERATION_RNG_SEED = 2311,
    DNNCOMPAT_ATTR_OPERATION_RNG_DESC = 2312,
    DNNCOMPAT_ATTR_OPERATION_RNG_OFFSET_DESC = 2313,
    DNNCOMPAT_ATTR_KERNEL_CACHE_OPERATION_GRAPH = 2400,
    DNNCOMPAT_ATTR_KERNEL_CACHE_IS_ENGINECFG_KERNEL_CACHED = 2401,
    DNNCOMPAT_ATTR_KERNEL_CACHE_JSON_REPRESENTATION = 2402,
    DNNCOMPAT_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_XDESC = 2500,
    DNNCOMPAT_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_YDESC = 2501,
    DNNCOMPAT_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_SCALE_DESC = 2502,
    DNNCOMPAT_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_MATH_PREC = 2503,
    DNNCOMPAT_ATTR_OPERATION_BLOCK_SCALE_QUANTIZE_BLOCK_SIZE = 2504,
    DNNCOMPAT_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_XDESC = 2600,
    DNNCOMPAT_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_SCALE_DESC = 2601,
    DNNCOMPAT_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_YDESC = 2602,
    DNNCOMPAT_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_MATH_PREC = 2603,
    DNNCOMPAT_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_BLOCK_SIZE = 2604,
    DNNCOMPAT_ATTR_OPERATION_BLOCK_SCALE_DEQUANTIZE_NEG_SCALE = 2605,
    DNNCOMPAT_ATTR_DEVICEPROP_DEVICE_ID = 2700,
    DNNCOMPAT_ATTR_DEVICEPROP_HANDLE = 2701,
    DNNCOMPAT_ATTR_DEVICEPROP_JSON_REPRESENTATION = 2702,
    DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_QDESC = 2800,
    DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_KDESC = 2801,
    DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_VDESC = 2802,
    DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_ODESC = 2803,
    DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_STATSDESC = 2804,
    DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_SCALEDESC = 2805,
    DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_BLOCK_MASK_DESC = 2806,
    DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_KDESC = 2807,
    DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_PAGE_TABLE_VDESC = 2808,
    DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC = 2809,
    DNNCOMPAT_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC = 2810,
    DNNCOMPAT_ATTR_OPERATION_SDPA_BWD_QDESC = 2851,
    DNNCOMPAT_ATTR_OPERATION_SDPA_BWD_KDESC = 2852,
    DNNCOMPAT_ATTR_OPERATION_SDPA_BWD_VDESC = 2853,
    DNNCOMPAT_ATTR_OPERATION_SDPA_BWD_ODESC = 2854,
    DNNCOMPAT_ATTR_OPERATION_SDPA_BWD_STATSDESC = 2855,
    DNNCOMPAT_ATTR_OPERATION_SDPA_BWD_SCALEDESC = 2856,
    DNNCOMPAT_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_QDESC = 2857,
    DNNCOMPAT_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KVDESC = 2858,
    DNNCOMPAT_ATTR_OPERATION_SDPA_BWD_DQDESC = 2859,
    DNNCOMPAT_ATTR_OPERATION_SDPA_BWD_DKDESC = 2860,
    DNNCOMPAT_ATTR_OPERATION_SDPA_BWD_DVDESC = 2861,
    DNNCOMPAT_ATTR_OPERATION_SDPA_BWD_DODDESC = 2862,
    DNNCOMPAT_ATTR_OPERATION_MOE_GROUPED_MATMUL_MODE = 2900,
    DNNCOMPAT_ATTR_OPERATION_MOE_GROUPED_MATMUL_MATH_PREC = 2901,
    DNNCOMPAT_ATTR_OPERATION_MOE_GROUPED_MATMUL_TOKEN_DESC = 2902,
    DNNCOMPAT_ATTR_OPERATION_MOE_GROUPED_MATMUL_WEIGHT_DESC = 2903,
    DNNCOMPAT_ATTR_OPERATION_MOE_GROUPED_MATMUL_FIRST_TOKEN_OFFSET_DESC = 2904,
    DNNCOMPAT_ATTR_OPERATION_MOE_GROUPED_MATMUL_OUTPUT_DESC = 2905,
    DNNCOMPAT_ATTR_OPERATION_MOE_GROUPED_MATMUL_TOKEN_INDEX_DESC = 2906,
    DNNCOMPAT_ATTR_OPERATION_MOE_GROUPED_MATMUL_TOKEN_KS_DESC = 2907,
    DNNCOMPAT_ATTR_OPERATION_MOE_GROUPED_MATMUL_TOP_K = 2908,
} dnncompatBackendAttributeName_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_TYPE_HANDLE = 0,
    DNNCOMPAT_TYPE_DATA_TYPE = 1,
    DNNCOMPAT_TYPE_BOOLEAN = 2,
    DNNCOMPAT_TYPE_INT64 = 3,
    DNNCOMPAT_TYPE_FLOAT = 4,
    DNNCOMPAT_TYPE_DOUBLE = 5,
    DNNCOMPAT_TYPE_VOID_PTR = 6,
    DNNCOMPAT_TYPE_CONVOLUTION_MODE = 7,
    DNNCOMPAT_TYPE_HEUR_MODE = 8,
    DNNCOMPAT_TYPE_KNOB_TYPE = 9,
    DNNCOMPAT_TYPE_NAN_PROPOGATION = 10, /* deprecated in cuDNN 9 */
    DNNCOMPAT_TYPE_NUMERICAL_NOTE = 11,
    DNNCOMPAT_TYPE_LAYOUT_TYPE = 12,
    DNNCOMPAT_TYPE_ATTRIB_NAME = 13,
    DNNCOMPAT_TYPE_POINTWISE_MODE = 14,
    DNNCOMPAT_TYPE_BACKEND_DESCRIPTOR = 15,
    DNNCOMPAT_TYPE_GENSTATS_MODE = 16,
    DNNCOMPAT_TYPE_BN_FINALIZE_STATS_MODE = 17,
    DNNCOMPAT_TYPE_REDUCTION_OPERATOR_TYPE = 18,
    DNNCOMPAT_TYPE_BEHAVIOR_NOTE = 19,
    DNNCOMPAT_TYPE_TENSOR_REORDERING_MODE = 20,
    DNNCOMPAT_TYPE_RESAMPLE_MODE = 21,
    DNNCOMPAT_TYPE_PADDING_MODE = 22,
    DNNCOMPAT_TYPE_INT32 = 23,
    DNNCOMPAT_TYPE_CHAR = 24,
    DNNCOMPAT_TYPE_SIGNAL_MODE = 25,
    DNNCOMPAT_TYPE_FRACTION = 26,
    DNNCOMPAT_TYPE_NORM_MODE = 27,
    DNNCOMPAT_TYPE_NORM_FWD_PHASE = 28,
    DNNCOMPAT_TYPE_RNG_DISTRIBUTION = 29,
    DNNCOMPAT_TYPE_MOE_GROUPED_MATMUL_MODE = 30,
} dnncompatBackendAttributeType_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_BACKEND_POINTWISE_DESCRIPTOR = 0,
    DNNCOMPAT_BACKEND_CONVOLUTION_DESCRIPTOR = 1,
    DNNCOMPAT_BACKEND_ENGINE_DESCRIPTOR = 2,
    DNNCOMPAT_BACKEND_ENGINECFG_DESCRIPTOR = 3,
    DNNCOMPAT_BACKEND_ENGINEHEUR_DESCRIPTOR = 4,
    DNNCOMPAT_BACKEND_EXECUTION_PLAN_DESCRIPTOR = 5,
    DNNCOMPAT_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR = 6,
    DNNCOMPAT_BACKEND_KNOB_CHOICE_DESCRIPTOR = 7,
    DNNCOMPAT_BACKEND_KNOB_INFO_DESCRIPTOR = 8,
    DNNCOMPAT_BACKEND_LAYOUT_INFO_DESCRIPTOR = 9,
    DNNCOMPAT_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR = 10,
    DNNCOMPAT_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR = 11,
    DNNCOMPAT_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR = 12,
    DNNCOMPAT_BACKEND_OPERATION_POINTWISE_DESCRIPTOR = 13,
    DNNCOMPAT_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR = 14,
    DNNCOMPAT_BACKEND_OPERATIONGRAPH_DESCRIPTOR = 15,
    DNNCOMPAT_BACKEND_VARIANT_PACK_DESCRIPTOR = 16,
    DNNCOMPAT_BACKEND_TENSOR_DESCRIPTOR = 17,
    DNNCOMPAT_BACKEND_MATMUL_DESCRIPTOR = 18,
    DNNCOMPAT_BACKEND_OPERATION_MATMUL_DESCRIPTOR = 19,
    DNNCOMPAT_BACKEND_OPERATION_BN_FINALIZE_STATISTICS_DESCRIPTOR = 20,
    DNNCOMPAT_BACKEND_REDUCTION_DESCRIPTOR = 21,
    DNNCOMPAT_BACKEND_OPERATION_REDUCTION_DESCRIPTOR = 22,
    DNNCOMPAT_BACKEND_OPERATION_BN_BWD_WEIGHTS_DESCRIPTOR = 23,
    DNNCOMPAT_BACKEND_RESAMPLE_DESCRIPTOR = 24,
    DNNCOMPAT_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR = 25,
    DNNCOMPAT_BACKEND_OPERATION_RESAMPLE_BWD_DESCRIPTOR = 26,
    DNNCOMPAT_BACKEND_OPERATION_CONCAT_DESCRIPTOR = 27,
    DNNCOMPAT_BACKEND_OPERATION_SIGNAL_DESCRIPTOR = 28,
    DNNCOMPAT_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR = 29,
    DNNCOMPAT_BACKEND_OPERATION_NORM_BACKWARD_DESCRIPTOR = 30,
    DNNCOMPAT_BACKEND_OPERATION_RESHAPE_DESCRIPTOR = 31,
    DNNCOMPAT_BACKEND_RNG_DESCRIPTOR = 32,
    DNNCOMPAT_BACKEND_OPERATION_RNG_DESCRIPTOR = 33,
    DNNCOMPAT_BACKEND_KERNEL_CACHE_DESCRIPTOR = 34,
    DNNCOMPAT_BACKEND_OPERATION_PAGED_CACHE_LOAD_DESCRIPTOR = 35,
    DNNCOMPAT_BACKEND_OPERATION_BLOCK_SCALE_QUANTIZE_DESCRIPTOR = 36,
    DNNCOMPAT_BACKEND_OPERATION_BLOCK_SCALE_DEQUANTIZE_DESCRIPTOR = 37,
    DNNCOMPAT_BACKEND_DEVICEPROP_DESCRIPTOR = 38,
    DNNCOMPAT_BACKEND_OPERATION_EXPAND_BAND_MATRIX_DESCRIPTOR = 39,
    DNNCOMPAT_BACKEND_OPERATION_CONTRACT_BAND_MATRIX_DESCRIPTOR = 40,
    DNNCOMPAT_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR = 41,
    DNNCOMPAT_BACKEND_OPERATION_MOE_GROUPED_MATMUL_DESCRIPTOR = 42,
    DNNCOMPAT_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR = 43,
} dnncompatBackendDescriptorType_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_NUMERICAL_NOTE_TENSOR_CORE = 0,
    DNNCOMPAT_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS = 1,
    DNNCOMPAT_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION = 2,
    DNNCOMPAT_NUMERICAL_NOTE_FFT = 3,
    DNNCOMPAT_NUMERICAL_NOTE_NONDETERMINISTIC = 4,
    DNNCOMPAT_NUMERICAL_NOTE_WINOGRAD = 5,
    DNNCOMPAT_NUMERICAL_NOTE_WINOGRAD_TILE_4x4 = 6,
    DNNCOMPAT_NUMERICAL_NOTE_WINOGRAD_TILE_6x6 = 7,
    DNNCOMPAT_NUMERICAL_NOTE_WINOGRAD_TILE_13x13 = 8,
    DNNCOMPAT_NUMERICAL_NOTE_STRICT_NAN_PROP = 9,
    DNNCOMPAT_NUMERICAL_NOTE_TYPE_COUNT = 10,
} dnncompatBackendNumericalNote_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_BEHAVIOR_NOTE_RUNTIME_COMPILATION = 0,
    DNNCOMPAT_BEHAVIOR_NOTE_REQUIRES_FILTER_INT8x32_REORDER = 1,
    DNNCOMPAT_BEHAVIOR_NOTE_REQUIRES_BIAS_INT8x32_REORDER = 2,
    DNNCOMPAT_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API = 3,
    DNNCOMPAT_BEHAVIOR_NOTE_CUBLASLT_DEPENDENCY = 4,
    DNNCOMPAT_BEHAVIOR_NOTE_TYPE_COUNT = 5,
} dnncompatBackendBehaviorNote_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_KNOB_TYPE_SPLIT_K = 0, /* deprecated in cuDNN 9 */
    DNNCOMPAT_KNOB_TYPE_SWIZZLE = 1,
    DNNCOMPAT_KNOB_TYPE_TILE_SIZE = 2,
    DNNCOMPAT_KNOB_TYPE_USE_TEX = 3, /* deprecated in cuDNN 9 */
    DNNCOMPAT_KNOB_TYPE_EDGE = 4,
    DNNCOMPAT_KNOB_TYPE_KBLOCK = 5,     /* deprecated in cuDNN 9 */
    DNNCOMPAT_KNOB_TYPE_LDGA = 6,       /* deprecated in cuDNN 9 */
    DNNCOMPAT_KNOB_TYPE_LDGB = 7,       /* deprecated in cuDNN 9 */
    DNNCOMPAT_KNOB_TYPE_CHUNK_K = 8,    /* deprecated in cuDNN 9 */
    DNNCOMPAT_KNOB_TYPE_SPLIT_H = 9,    /* deprecated in cuDNN 9 */
    DNNCOMPAT_KNOB_TYPE_WINO_TILE = 10, /* deprecated in cuDNN 9 */
    DNNCOMPAT_KNOB_TYPE_MULTIPLY = 11,
    DNNCOMPAT_KNOB_TYPE_SPLIT_K_BUF = 12,
    DNNCOMPAT_KNOB_TYPE_TILEK = 13,
    DNNCOMPAT_KNOB_TYPE_STAGES = 14,
    DNNCOMPAT_KNOB_TYPE_REDUCTION_MODE = 15,
    DNNCOMPAT_KNOB_TYPE_CTA_SPLIT_K_MODE = 16, /* deprecated in cuDNN 9 */
    DNNCOMPAT_KNOB_TYPE_SPLIT_K_SLC = 17,
    DNNCOMPAT_KNOB_TYPE_IDX_MODE = 18,
    DNNCOMPAT_KNOB_TYPE_SLICED = 19,       /* deprecated in cuDNN 9 */
    DNNCOMPAT_KNOB_TYPE_SPLIT_RS = 20,     /* deprecated in cuDNN 9 */
    DNNCOMPAT_KNOB_TYPE_SINGLEBUFFER = 21, /* deprecated in cuDNN 9 */
    DNNCOMPAT_KNOB_TYPE_LDGC = 22,         /* deprecated in cuDNN 9 */
    DNNCOMPAT_KNOB_TYPE_SPECFILT = 23,
    DNNCOMPAT_KNOB_TYPE_KERNEL_CFG = 24,
    DNNCOMPAT_KNOB_TYPE_WORKSPACE = 25,
    DNNCOMPAT_KNOB_TYPE_TILE_CGA = 26, /* deprecated in cuDNN 9 */
    DNNCOMPAT_KNOB_TYPE_TILE_CGA_M = 27,
    DNNCOMPAT_KNOB_TYPE_TILE_CGA_N = 28,
    DNNCOMPAT_KNOB_TYPE_BLOCK_SIZE = 29,
    DNNCOMPAT_KNOB_TYPE_OCCUPANCY = 30,
    DNNCOMPAT_KNOB_TYPE_ARRAY_SIZE_PER_THREAD = 31,
    DNNCOMPAT_KNOB_TYPE_NUM_C_PER_BLOCK = 32, /* deprecated in cuDNN 9 */
    DNNCOMPAT_KNOB_TYPE_SPLIT_COLS = 33,
    DNNCOMPAT_KNOB_TYPE_TILE_ROWS = 34,
    DNNCOMPAT_KNOB_TYPE_TILE_COLS = 35,
    DNNCOMPAT_KNOB_TYPE_LOAD_SIZE = 36,
    DNNCOMPAT_KNOB_TYPE_CTA_COUNT = 37,
    DNNCOMPAT_KNOB_TYPE_STREAM_K = 38,
    DNNCOMPAT_KNOB_TYPE_SPLIT_P_SLC = 39,
    DNNCOMPAT_KNOB_TYPE_TILE_M = 40,
    DNNCOMPAT_KNOB_TYPE_TILE_N = 41,
    DNNCOMPAT_KNOB_TYPE_WARP_SPEC_CFG = 42,
    DNNCOMPAT_KNOB_TYPE_SWAP_AB = 43,
    DNNCOMPAT_KNOB_TYPE_COUNTS = 44,
} dnncompatBackendKnobType_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_LAYOUT_TYPE_PREFERRED_NCHW = 0,
    DNNCOMPAT_LAYOUT_TYPE_PREFERRED_NHWC = 1,
    DNNCOMPAT_LAYOUT_TYPE_PREFERRED_PAD4CK = 2,
    DNNCOMPAT_LAYOUT_TYPE_PREFERRED_PAD8CK = 3,
    DNNCOMPAT_LAYOUT_TYPE_COUNT = 4,
} dnncompatBackendLayoutType_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_HEUR_MODE_INSTANT = 0,
    DNNCOMPAT_HEUR_MODE_B = 1,
    DNNCOMPAT_HEUR_MODE_FALLBACK = 2,
    DNNCOMPAT_HEUR_MODE_A = 3,
    DNNCOMPAT_HEUR_MODES_COUNT = 4,
} dnncompatBackendHeurMode_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_TENSOR_REORDERING_NONE = 0,
    DNNCOMPAT_TENSOR_REORDERING_INT8x32 = 1,
    DNNCOMPAT_TENSOR_REORDERING_F16x16 = 2,
    DNNCOMPAT_TENSOR_REORDERING_F8_128x4 = 3,
} dnncompatBackendTensorReordering_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_ZERO_PAD = 0,
    DNNCOMPAT_NEG_INF_PAD = 1,
    DNNCOMPAT_EDGE_VAL_PAD = 2,
} dnncompatPaddingMode_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_LAYER_NORM = 0,
    DNNCOMPAT_INSTANCE_NORM = 1,
    DNNCOMPAT_BATCH_NORM = 2,
    DNNCOMPAT_GROUP_NORM = 3,
    DNNCOMPAT_RMS_NORM = 4,
    DNNCOMPAT_ADA_LAYER_NORM = 5,
} dnncompatBackendNormMode_t;

typedef enum DNNCOMPAT_ENUM_BASE {
    DNNCOMPAT_NORM_FWD_INFERENCE = 0,
    DNNCOMPAT_NORM_FWD_TRAINING = 1,
} dnncompatBackendNormFwdPhase_t;

/* Creates an empty descriptor of descriptorType in *descriptor (as cudnnBackendCreateDescriptor,
 * cuDNN 9 API reference). BAD_PARAM_NULL_POINTER for a null descriptor; BAD_PARAM for a value
 * outside cudnnBackendDescriptorType_t; NOT_SUPPORTED (with the catalogue's reason) for a type
 * dnncompat does not implement; ALLOC_FAILED when out of memory. */
dnncompatStatus_t dnncompatBackendCreateDescriptor(dnncompatBackendDescriptorType_t descriptorType,
                                                   dnncompatBackendDescriptor_t *descriptor);

/* Destroys a descriptor (as cudnnBackendDestroyDescriptor). Descriptors that refer to it and are
 * finalized stay valid. BAD_PARAM for a null or unknown descriptor. */
dnncompatStatus_t dnncompatBackendDestroyDescriptor(dnncompatBackendDescriptor_t descriptor);

/* Deprecated in cuDNN 9: resets the descriptor to its created, unfinalized state with every
 * attribute unset (as cudnnBackendInitialize). BAD_PARAM for a null or unknown descriptor. */
dnncompatStatus_t dnncompatBackendInitialize(dnncompatBackendDescriptor_t descriptor);

/* Validates every attribute of the descriptor and makes it immutable (as cudnnBackendFinalize).
 * BAD_PARAM for a missing or inconsistent attribute (the last-error string names it);
 * BAD_PARAM_NOT_FINALIZED when a descriptor it refers to is not finalized; BAD_PARAM_SHAPE_MISMATCH
 * for tensors whose shapes do not fit the operation; NOT_SUPPORTED (GRAPH_PATTERN, DATA_TYPE,
 * SHAPE or LAYOUT sub-code) when dnncompat cannot run an engine config or execution plan;
 * BAD_PARAM for a descriptor already finalized. */
dnncompatStatus_t dnncompatBackendFinalize(dnncompatBackendDescriptor_t descriptor);

/* Sets attribute attributeName to elementCount elements of attributeType read from
 * arrayOfElements (as cudnnBackendSetAttribute): an element is the C type the attribute type
 * names (INT64: int64_t, FLOAT: float, BACKEND_DESCRIPTOR: dnncompatBackendDescriptor_t, ...).
 * BAD_PARAM_NULL_POINTER for a null array with elementCount > 0; BAD_PARAM_ATTRIBUTE_TYPE for a
 * type the attribute does not take; BAD_PARAM for an attribute the descriptor type does not
 * have, a count outside the attribute's range or a value outside its enum; BAD_PARAM for a
 * descriptor already finalized; BAD_PARAM_DESCRIPTOR_TYPE for a referenced descriptor of the
 * wrong type. */
dnncompatStatus_t dnncompatBackendSetAttribute(dnncompatBackendDescriptor_t descriptor,
                                               dnncompatBackendAttributeName_t attributeName,
                                               dnncompatBackendAttributeType_t attributeType, int64_t elementCount,
                                               const void *arrayOfElements);

/* Reads up to requestedElementCount elements of attribute attributeName into arrayOfElements and
 * the attribute's element count into *elementCount (as cudnnBackendGetAttribute). With a
 * BACKEND_DESCRIPTOR attribute the caller passes descriptors it created, which are filled (an
 * engine heuristic's results, an engine config's engine). arrayOfElements may be null to ask for
 * the count only (whatever requestedElementCount is). BAD_PARAM_NOT_FINALIZED before Finalize;
 * BAD_PARAM_ATTRIBUTE_TYPE for a wrong type; BAD_PARAM for an attribute the type does not have or a
 * negative count; BAD_PARAM_NULL_POINTER for a null elementCount with a null array;
 * BAD_PARAM_DESCRIPTOR_TYPE for an output descriptor of the wrong type. */
dnncompatStatus_t dnncompatBackendGetAttribute(dnncompatBackendDescriptor_t const descriptor,
                                               dnncompatBackendAttributeName_t attributeName,
                                               dnncompatBackendAttributeType_t attributeType,
                                               int64_t requestedElementCount, int64_t *elementCount,
                                               void *arrayOfElements);

/* Runs a finalized execution plan on the buffers of a finalized variant pack (as
 * cudnnBackendExecute). BAD_PARAM for a null handle or descriptor, or descriptors of the wrong
 * types; BAD_PARAM_NOT_FINALIZED for an unfinalized one; BAD_PARAM when the variant pack lacks a
 * non-virtual tensor's uid, has a null pointer for one, or its workspace is null while the plan
 * needs workspace. Returns when the results are in memory. */
dnncompatStatus_t dnncompatBackendExecute(dnncompatHandle_t handle, dnncompatBackendDescriptor_t executionPlan,
                                          dnncompatBackendDescriptor_t variantPack);

/* CUDA graphs do not exist on the CPU: NOT_SUPPORTED (no engine has the
 * SUPPORTS_CUDA_GRAPH_NATIVE_API behaviour note), BAD_PARAM for null arguments (as
 * cudnnBackendPopulateCudaGraph / cudnnBackendUpdateCudaGraph). */
dnncompatStatus_t dnncompatBackendPopulateCudaGraph(dnncompatHandle_t handle,
                                                    dnncompatBackendDescriptor_t executionPlan,
                                                    dnncompatBackendDescriptor_t variantPack,
                                                    dnncompatCudaGraph_t graph);
dnncompatStatus_t dnncompatBackendUpdateCudaGraph(dnncompatHandle_t handle, dnncompatBackendDescriptor_t executionPlan,
                                                  dnncompatBackendDescriptor_t variantPack, dnncompatCudaGraph_t graph);

/* end of section graph-api */

/* ------------------------------------------------------------------------------------------ */
/* dnncompat extensions (no cuDNN equivalent)                                                  */
/* ------------------------------------------------------------------------------------------ */

/* What the most recent compute call on this handle ran. impl: oneDNN's implementation name
 * (e.g. "jit:avx2", "gemm:jit"), or the dnncompat path. algoRequested / algoRan: the cuDNN
 * algorithm enum asked for and the one whose semantics ran (equal unless a fallback happened).
 * workspaceBytes: the workspace the call used. */
typedef struct dnncompatRunInfo_t {
    char api[64];
    char impl[96];
    int algoRequested;
    int algoRan;
    size_t workspaceBytes;
    int diagnosticCount; /* diagnostics the call emitted */
} dnncompatRunInfo_t;

/* Fills *info for the last compute call on handle that succeeded (a failed call leaves the
 * previous info in place). BAD_PARAM for a null or invalid handle, NOT_INITIALIZED if no compute
 * call has succeeded on it yet. */
dnncompatStatus_t dnncompatGetLastRunInfo(dnncompatHandle_t handle, dnncompatRunInfo_t *info);

/* How a convolution whose oneDNN implementation reads w in another layout (oneDNN's blocked or
 * Winograd weights), or whose solver transforms w first (gemm.winograd-4x4's U), reuses the
 * transformed copy across calls: the handle's weight cache, for forward and backward data. The copy is keyed by w's
 * address and layouts. The default comes from DNNCOMPAT_WEIGHT_CACHE when the handle first runs such a convolution: 0 /
 * off / false gives OFF, constant gives CONSTANT, anything else VERIFIED. */
typedef enum DNNCOMPAT_ENUM_BASE {
    /* Transform w on every call, into the caller's workspace. */
    DNNCOMPAT_WEIGHT_CACHE_OFF = 0,
    /* The default: reuse the copy while a fingerprint of every byte of w, computed on each call,
     * is unchanged. A changed filter is never served stale; the fingerprint reads all of w
     * on every call. */
    DNNCOMPAT_WEIGHT_CACHE_VERIFIED = 1,
    /* Reuse the copy without reading w. The caller promises that the filter at an address keeps
     * its content until it calls dnncompatInvalidateWeights for that address (after writing to
     * it, or freeing it and allocating another filter there). A broken promise computes with
     * the old filter: use it for inference with fixed weights. */
    DNNCOMPAT_WEIGHT_CACHE_CONSTANT = 2
} dnncompatWeightCacheMode_t;

/* Sets handle's weight cache mode; OFF also frees every copy the handle holds. BAD_PARAM for a
 * null or invalid handle or a mode that is none of the above. */
dnncompatStatus_t dnncompatSetWeightCacheMode(dnncompatHandle_t handle, dnncompatWeightCacheMode_t mode);

/* *mode = handle's weight cache mode. BAD_PARAM for a null or invalid handle or a null mode. */
dnncompatStatus_t dnncompatGetWeightCacheMode(dnncompatHandle_t handle, dnncompatWeightCacheMode_t *mode);

/* Drops the transformed copies handle holds of the filter at address w (w NULL: of every
 * filter), so that the next call transforms w again; what CONSTANT mode needs after w changes.
 * Nothing held for w is not an error. BAD_PARAM for a null or invalid handle. */
dnncompatStatus_t dnncompatInvalidateWeights(dnncompatHandle_t handle, const void *w);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* DNNCOMPAT_DNNCOMPAT_H */
