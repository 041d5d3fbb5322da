/*
 * dnncompat: the cuDNN legacy API on oneDNN.
 *
 * Every type, enum and function here mirrors a cuDNN 9 legacy-API name with the `cudnn` prefix
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

/* Version of the cuDNN API this header mirrors. */
#define DNNCOMPAT_CUDNN_MAJOR 9
#define DNNCOMPAT_CUDNN_MINOR 19
#define DNNCOMPAT_CUDNN_PATCHLEVEL 0
#define DNNCOMPAT_CUDNN_VERSION \
    (DNNCOMPAT_CUDNN_MAJOR * 10000 + DNNCOMPAT_CUDNN_MINOR * 100 + DNNCOMPAT_CUDNN_PATCHLEVEL)

#define DNNCOMPAT_DIM_MAX 8
#define DNNCOMPAT_LRN_MIN_N 1
#define DNNCOMPAT_LRN_MAX_N 16
#define DNNCOMPAT_LRN_MIN_K 1e-5
#define DNNCOMPAT_LRN_MIN_BETA 0.01
#define DNNCOMPAT_BN_MIN_EPSILON 0.0

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
/* A CUDA stream stands in as an opaque value: it is stored and returned, never used. */
typedef struct dnncompatStreamOpaque *dnncompatStream_t;

typedef enum {
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

typedef enum {
    DNNCOMPAT_ERRQUERY_RAWCODE = 0,
    DNNCOMPAT_ERRQUERY_NONBLOCKING = 1,
    DNNCOMPAT_ERRQUERY_BLOCKING = 2,
} dnncompatErrQueryMode_t;

typedef enum {
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

typedef enum {
    DNNCOMPAT_DEFAULT_MATH = 0,
    DNNCOMPAT_TENSOR_OP_MATH = 1,
    DNNCOMPAT_TENSOR_OP_MATH_ALLOW_CONVERSION = 2,
    DNNCOMPAT_FMA_MATH = 3,
} dnncompatMathType_t;

typedef enum {
    DNNCOMPAT_NOT_PROPAGATE_NAN = 0,
    DNNCOMPAT_PROPAGATE_NAN = 1,
} dnncompatNanPropagation_t;

typedef enum {
    DNNCOMPAT_TENSOR_NCHW = 0,
    DNNCOMPAT_TENSOR_NHWC = 1,
    DNNCOMPAT_TENSOR_NCHW_VECT_C = 2,
} dnncompatTensorFormat_t;

typedef enum {
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

typedef enum {
    DNNCOMPAT_ACTIVATION_SIGMOID = 0,
    DNNCOMPAT_ACTIVATION_RELU = 1,
    DNNCOMPAT_ACTIVATION_TANH = 2,
    DNNCOMPAT_ACTIVATION_CLIPPED_RELU = 3,
    DNNCOMPAT_ACTIVATION_ELU = 4,
    DNNCOMPAT_ACTIVATION_IDENTITY = 5,
    DNNCOMPAT_ACTIVATION_SWISH = 6,
} dnncompatActivationMode_t;

typedef enum {
    DNNCOMPAT_SEV_FATAL = 0,
    DNNCOMPAT_SEV_ERROR = 1,
    DNNCOMPAT_SEV_WARNING = 2,
    DNNCOMPAT_SEV_INFO = 3,
} dnncompatSeverity_t;

typedef enum {
    DNNCOMPAT_CONVOLUTION = 0,
    DNNCOMPAT_CROSS_CORRELATION = 1,
} dnncompatConvolutionMode_t;

typedef enum {
    DNNCOMPAT_DEFAULT_REORDER = 0,
    DNNCOMPAT_NO_REORDER = 1,
} dnncompatReorderType_t;

typedef enum {
    DNNCOMPAT_NON_DETERMINISTIC = 0,
    DNNCOMPAT_DETERMINISTIC = 1,
} dnncompatDeterminism_t;

typedef enum {
    DNNCOMPAT_TRANSFORM_FOLD = 0,
    DNNCOMPAT_TRANSFORM_UNFOLD = 1,
} dnncompatFoldingDirection_t;

typedef enum {
    DNNCOMPAT_OP_TENSOR_ADD = 0,
    DNNCOMPAT_OP_TENSOR_MUL = 1,
    DNNCOMPAT_OP_TENSOR_MIN = 2,
    DNNCOMPAT_OP_TENSOR_MAX = 3,
    DNNCOMPAT_OP_TENSOR_SQRT = 4,
    DNNCOMPAT_OP_TENSOR_NOT = 5,
} dnncompatOpTensorOp_t;

typedef enum {
    DNNCOMPAT_REDUCE_TENSOR_NO_INDICES = 0,
    DNNCOMPAT_REDUCE_TENSOR_FLATTENED_INDICES = 1,
} dnncompatReduceTensorIndices_t;

typedef enum {
    DNNCOMPAT_32BIT_INDICES = 0,
    DNNCOMPAT_64BIT_INDICES = 1,
    DNNCOMPAT_16BIT_INDICES = 2,
    DNNCOMPAT_8BIT_INDICES = 3,
} dnncompatIndicesType_t;

typedef enum {
    DNNCOMPAT_SOFTMAX_FAST = 0,
    DNNCOMPAT_SOFTMAX_ACCURATE = 1,
    DNNCOMPAT_SOFTMAX_LOG = 2,
} dnncompatSoftmaxAlgorithm_t;

typedef enum {
    DNNCOMPAT_SOFTMAX_MODE_INSTANCE = 0,
    DNNCOMPAT_SOFTMAX_MODE_CHANNEL = 1,
} dnncompatSoftmaxMode_t;

typedef enum {
    DNNCOMPAT_POOLING_MAX = 0,
    DNNCOMPAT_POOLING_AVERAGE_COUNT_INCLUDE_PADDING = 1,
    DNNCOMPAT_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING = 2,
    DNNCOMPAT_POOLING_MAX_DETERMINISTIC = 3,
} dnncompatPoolingMode_t;

typedef enum {
    DNNCOMPAT_LRN_CROSS_CHANNEL_DIM1 = 0,
} dnncompatLRNMode_t;

typedef enum {
    DNNCOMPAT_DIVNORM_PRECOMPUTED_MEANS = 0,
} dnncompatDivNormMode_t;

typedef enum {
    DNNCOMPAT_BATCHNORM_PER_ACTIVATION = 0,
    DNNCOMPAT_BATCHNORM_SPATIAL = 1,
    DNNCOMPAT_BATCHNORM_SPATIAL_PERSISTENT = 2,
} dnncompatBatchNormMode_t;

typedef enum {
    DNNCOMPAT_BATCHNORM_OPS_BN = 0,
    DNNCOMPAT_BATCHNORM_OPS_BN_ACTIVATION = 1,
    DNNCOMPAT_BATCHNORM_OPS_BN_ADD_ACTIVATION = 2,
} dnncompatBatchNormOps_t;

typedef enum {
    DNNCOMPAT_NORM_PER_ACTIVATION = 0,
    DNNCOMPAT_NORM_PER_CHANNEL = 1,
} dnncompatNormMode_t;

typedef enum {
    DNNCOMPAT_NORM_ALGO_STANDARD = 0,
    DNNCOMPAT_NORM_ALGO_PERSIST = 1,
} dnncompatNormAlgo_t;

typedef enum {
    DNNCOMPAT_NORM_OPS_NORM = 0,
    DNNCOMPAT_NORM_OPS_NORM_ACTIVATION = 1,
    DNNCOMPAT_NORM_OPS_NORM_ADD_ACTIVATION = 2,
} dnncompatNormOps_t;

typedef enum {
    DNNCOMPAT_SAMPLER_BILINEAR = 0,
} dnncompatSamplerType_t;

typedef enum {
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

typedef enum {
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_0 = 0,
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_1 = 1,
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_FFT = 2,
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_3 = 3,
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD = 4,
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED = 5,
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING = 6,
    DNNCOMPAT_CONVOLUTION_BWD_FILTER_ALGO_COUNT = 7,
} dnncompatConvolutionBwdFilterAlgo_t;

typedef enum {
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
/* ------------------------------------------------------------------------------------------ */

dnncompatStatus_t dnncompatCreateTensorDescriptor(dnncompatTensorDescriptor_t *tensorDesc);
dnncompatStatus_t dnncompatSetTensor4dDescriptor(dnncompatTensorDescriptor_t tensorDesc,
        dnncompatTensorFormat_t format, dnncompatDataType_t dataType, int n, int c, int h, int w);
dnncompatStatus_t dnncompatSetTensor4dDescriptorEx(dnncompatTensorDescriptor_t tensorDesc,
        dnncompatDataType_t dataType, int n, int c, int h, int w, int nStride, int cStride,
        int hStride, int wStride);
dnncompatStatus_t dnncompatGetTensor4dDescriptor(const dnncompatTensorDescriptor_t tensorDesc,
        dnncompatDataType_t *dataType, int *n, int *c, int *h, int *w, int *nStride, int *cStride,
        int *hStride, int *wStride);
dnncompatStatus_t dnncompatSetTensorNdDescriptor(dnncompatTensorDescriptor_t tensorDesc,
        dnncompatDataType_t dataType, int nbDims, const int dimA[], const int strideA[]);
dnncompatStatus_t dnncompatSetTensorNdDescriptorEx(dnncompatTensorDescriptor_t tensorDesc,
        dnncompatTensorFormat_t format, dnncompatDataType_t dataType, int nbDims,
        const int dimA[]);
/* As cudnnGetTensorNdDescriptor: writes min(nbDimsRequested, nbDims) dims and strides. */
dnncompatStatus_t dnncompatGetTensorNdDescriptor(const dnncompatTensorDescriptor_t tensorDesc,
        int nbDimsRequested, dnncompatDataType_t *dataType, int *nbDims, int dimA[],
        int strideA[]);
/* As cudnnGetTensorSizeInBytes: bytes spanned by the strided tensor. */
dnncompatStatus_t dnncompatGetTensorSizeInBytes(const dnncompatTensorDescriptor_t tensorDesc,
        size_t *size);
dnncompatStatus_t dnncompatDestroyTensorDescriptor(dnncompatTensorDescriptor_t tensorDesc);

/* ------------------------------------------------------------------------------------------ */
/* Filter descriptors: K, C/groups, then spatial (R, S); format NCHW means KCRS packed,        */
/* NHWC means KRSC packed.                                                                     */
/* ------------------------------------------------------------------------------------------ */

dnncompatStatus_t dnncompatCreateFilterDescriptor(dnncompatFilterDescriptor_t *filterDesc);
dnncompatStatus_t dnncompatSetFilter4dDescriptor(dnncompatFilterDescriptor_t filterDesc,
        dnncompatDataType_t dataType, dnncompatTensorFormat_t format, int k, int c, int h, int w);
dnncompatStatus_t dnncompatGetFilter4dDescriptor(const dnncompatFilterDescriptor_t filterDesc,
        dnncompatDataType_t *dataType, dnncompatTensorFormat_t *format, int *k, int *c, int *h,
        int *w);
dnncompatStatus_t dnncompatSetFilterNdDescriptor(dnncompatFilterDescriptor_t filterDesc,
        dnncompatDataType_t dataType, dnncompatTensorFormat_t format, int nbDims,
        const int filterDimA[]);
dnncompatStatus_t dnncompatGetFilterNdDescriptor(const dnncompatFilterDescriptor_t filterDesc,
        int nbDimsRequested, dnncompatDataType_t *dataType, dnncompatTensorFormat_t *format,
        int *nbDims, int filterDimA[]);
/* As cudnnGetFilterSizeInBytes. */
dnncompatStatus_t dnncompatGetFilterSizeInBytes(const dnncompatFilterDescriptor_t filterDesc,
        size_t *size);
dnncompatStatus_t dnncompatDestroyFilterDescriptor(dnncompatFilterDescriptor_t filterDesc);

/* ------------------------------------------------------------------------------------------ */
/* Convolution descriptors. Dilation counts as cuDNN counts it: 1 = dense (oneDNN's 0).        */
/* Setters return BAD_PARAM for a pad below 0, stride or dilation below 1, arrayLength out of   */
/* [1, DNNCOMPAT_DIM_MAX - 2], a group count below 1, or an unknown mode, type or math type.   */
/* ------------------------------------------------------------------------------------------ */

dnncompatStatus_t dnncompatCreateConvolutionDescriptor(dnncompatConvolutionDescriptor_t *convDesc);
dnncompatStatus_t dnncompatSetConvolution2dDescriptor(dnncompatConvolutionDescriptor_t convDesc,
        int pad_h, int pad_w, int u, int v, int dilation_h, int dilation_w,
        dnncompatConvolutionMode_t mode, dnncompatDataType_t computeType);
dnncompatStatus_t dnncompatGetConvolution2dDescriptor(
        const dnncompatConvolutionDescriptor_t convDesc, int *pad_h, int *pad_w, int *u, int *v,
        int *dilation_h, int *dilation_w, dnncompatConvolutionMode_t *mode,
        dnncompatDataType_t *computeType);
dnncompatStatus_t dnncompatSetConvolutionNdDescriptor(dnncompatConvolutionDescriptor_t convDesc,
        int arrayLength, const int padA[], const int filterStrideA[], const int dilationA[],
        dnncompatConvolutionMode_t mode, dnncompatDataType_t computeType);
dnncompatStatus_t dnncompatGetConvolutionNdDescriptor(
        const dnncompatConvolutionDescriptor_t convDesc, int arrayLengthRequested,
        int *arrayLength, int padA[], int strideA[], int dilationA[],
        dnncompatConvolutionMode_t *mode, dnncompatDataType_t *computeType);
dnncompatStatus_t dnncompatSetConvolutionGroupCount(dnncompatConvolutionDescriptor_t convDesc,
        int groupCount);
dnncompatStatus_t dnncompatGetConvolutionGroupCount(dnncompatConvolutionDescriptor_t convDesc,
        int *groupCount);
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
 * 1 + (in + 2*pad - ((filter-1)*dilation + 1)) / stride (floor). BAD_PARAM when the input and
 * filter disagree (C not a multiple of the filter's C, ranks differ) or an output dim < 1. */
dnncompatStatus_t dnncompatGetConvolution2dForwardOutputDim(
        const dnncompatConvolutionDescriptor_t convDesc,
        const dnncompatTensorDescriptor_t inputTensorDesc,
        const dnncompatFilterDescriptor_t filterDesc, int *n, int *c, int *h, int *w);
dnncompatStatus_t dnncompatGetConvolutionNdForwardOutputDim(
        const dnncompatConvolutionDescriptor_t convDesc,
        const dnncompatTensorDescriptor_t inputTensorDesc,
        const dnncompatFilterDescriptor_t filterDesc, int nbDims, int tensorOuputDimA[]);
dnncompatStatus_t dnncompatDestroyConvolutionDescriptor(dnncompatConvolutionDescriptor_t convDesc);

/* ------------------------------------------------------------------------------------------ */
/* Convolution forward                                                                          */
/* ------------------------------------------------------------------------------------------ */

/* As cudnnGetConvolutionForwardAlgorithmMaxCount: DNNCOMPAT_CONVOLUTION_FWD_ALGO_COUNT. */
dnncompatStatus_t dnncompatGetConvolutionForwardAlgorithmMaxCount(dnncompatHandle_t handle,
        int *count);
/* As cudnnGetConvolutionForwardAlgorithm_v7: up to requestedAlgoCount entries, best first,
 * one per algorithm enum. Entries that run here have status SUCCESS, memory = the workspace
 * dnncompatGetConvolutionForwardWorkspaceSize returns for that algorithm, time = -1 (not
 * measured); algorithms that cannot run (FFT, FFT_TILING) come last with NOT_SUPPORTED.
 * BAD_PARAM for invalid or mismatched descriptors or requestedAlgoCount < 1. */
dnncompatStatus_t dnncompatGetConvolutionForwardAlgorithm_v7(dnncompatHandle_t handle,
        const dnncompatTensorDescriptor_t srcDesc, const dnncompatFilterDescriptor_t filterDesc,
        const dnncompatConvolutionDescriptor_t convDesc,
        const dnncompatTensorDescriptor_t destDesc, const int requestedAlgoCount,
        int *returnedAlgoCount, dnncompatConvolutionFwdAlgoPerf_t *perfResults);
/* As cudnnGetConvolutionForwardWorkspaceSize: bytes of workspace ConvolutionForward needs with
 * this algorithm (oneDNN's scratchpad of the implementation that will run, plus the flipped
 * filter for CONVOLUTION mode). BAD_PARAM for invalid or mismatched descriptors;
 * NOT_SUPPORTED for an algorithm that cannot run here (FFT, FFT_TILING). */
dnncompatStatus_t dnncompatGetConvolutionForwardWorkspaceSize(dnncompatHandle_t handle,
        const dnncompatTensorDescriptor_t xDesc, const dnncompatFilterDescriptor_t wDesc,
        const dnncompatConvolutionDescriptor_t convDesc, const dnncompatTensorDescriptor_t yDesc,
        dnncompatConvolutionFwdAlgo_t algo, size_t *sizeInBytes);
/* As cudnnConvolutionForward: y = alpha * conv(x, w) + beta * y (y is not read when beta = 0).
 * x: [N, C, spatial...], w: [K, C/groups, filter spatial...], y: [N, K, out spatial...], any
 * strides the descriptors give. alpha/beta point to float (double for DOUBLE data).
 * BAD_PARAM: null pointers, invalid or mismatched descriptors, y's shape not the computed one,
 * workSpaceSizeInBytes below what dnncompatGetConvolutionForwardWorkspaceSize returns.
 * NOT_SUPPORTED: an algorithm or data type with no equivalent result here. An algorithm oneDNN
 * lacks but can replace with an identical result runs the replacement and emits a diagnostic. */
dnncompatStatus_t dnncompatConvolutionForward(dnncompatHandle_t handle, const void *alpha,
        const dnncompatTensorDescriptor_t xDesc, const void *x,
        const dnncompatFilterDescriptor_t wDesc, const void *w,
        const dnncompatConvolutionDescriptor_t convDesc, dnncompatConvolutionFwdAlgo_t algo,
        void *workSpace, size_t workSpaceSizeInBytes, const void *beta,
        const dnncompatTensorDescriptor_t yDesc, void *y);

/* ------------------------------------------------------------------------------------------ */
/* Batch normalization                                                                          */
/* ------------------------------------------------------------------------------------------ */

/* As cudnnDeriveBNTensorDescriptor: 1xCx1x1 (SPATIAL) or 1xCxHxW (PER_ACTIVATION) of x's rank. */
dnncompatStatus_t dnncompatDeriveBNTensorDescriptor(dnncompatTensorDescriptor_t derivedBnDesc,
        const dnncompatTensorDescriptor_t xDesc, dnncompatBatchNormMode_t mode);
/* As cudnnBatchNormalizationForwardInference:
 * y = alpha * (scale * (x - mean) / sqrt(var + epsilon) + bias) + beta * y, with scale, bias,
 * mean and var shaped as dnncompatDeriveBNTensorDescriptor gives for the mode. BAD_PARAM for
 * null pointers, mismatched descriptors, epsilon < DNNCOMPAT_BN_MIN_EPSILON or an unknown mode. */
dnncompatStatus_t dnncompatBatchNormalizationForwardInference(dnncompatHandle_t handle,
        dnncompatBatchNormMode_t mode, const void *alpha, const void *beta,
        const dnncompatTensorDescriptor_t xDesc, const void *x,
        const dnncompatTensorDescriptor_t yDesc, void *y,
        const dnncompatTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale,
        const void *bnBias, const void *estimatedMean, const void *estimatedVariance,
        double epsilon);

/* ------------------------------------------------------------------------------------------ */
/* Convolution backward data / filter / bias, bias-activation, Find (as cudnn_cnn.h)          */
/* ------------------------------------------------------------------------------------------ */

/* end of section conv-backward */

/* ------------------------------------------------------------------------------------------ */
/* Batch normalization training and backward, dropout (as cudnn_ops.h)                        */
/* ------------------------------------------------------------------------------------------ */

/* end of section norm-training */

/* ------------------------------------------------------------------------------------------ */
/* Activation, pooling, softmax, LRN, divisive normalization (as cudnn_ops.h)                 */
/* ------------------------------------------------------------------------------------------ */

/* end of section pointwise-ops */

/* ------------------------------------------------------------------------------------------ */
/* Tensor operations: add, op, scale, set, transform, reduce (as cudnn_ops.h)                 */
/* ------------------------------------------------------------------------------------------ */

/* end of section tensor-ops */

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

/* Fills *info for the last compute call on handle. BAD_PARAM for a null or invalid handle,
 * NOT_INITIALIZED if no compute call ran on it yet. */
dnncompatStatus_t dnncompatGetLastRunInfo(dnncompatHandle_t handle, dnncompatRunInfo_t *info);

#ifdef __cplusplus
}
#endif

#endif /* DNNCOMPAT_DNNCOMPAT_H */
