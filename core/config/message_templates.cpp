// Filling the core's message templates, and their list (see message_templates.h).
#include "core/config/message_templates.h"

namespace fts {

std::string fillTemplate(std::string_view tmpl, std::initializer_list<std::string_view> args) {
    std::string out;
    out.reserve(tmpl.size() + 32);
    for (size_t i = 0; i < tmpl.size(); ++i) {
        const char c = tmpl[i];
        if (c == '%' && i + 1 < tmpl.size() && tmpl[i + 1] >= '1' && tmpl[i + 1] <= '9') {
            const size_t n = size_t(tmpl[i + 1] - '1');
            if (n < args.size()) out += *(args.begin() + n);
            ++i;
            continue;
        }
        out += c;
    }
    return out;
}

const std::vector<std::string_view>& messageTemplates() {
    using namespace msg;
    static const std::vector<std::string_view> all{
        kStoreMissing,
        kStoreHealth,
        kStoreDamagedFix,
        kStoreOldSchemaFix,
        kStoreUnreadableFix,
        kDiskUnknown,
        kDiskFree,
        kDiskFullFix,
        kDiskLowFix,
        kMemInfoUnreadable,
        kMemoryAvailable,
        kMemoryLowFix,
        kHfCacheNone,
        kHostFix,
        kHostReachable,
        kHostNameFix,
        kNcclMissingFix,
        kCudaRuntime,
        kBuiltWithoutCuda,
        kNcclNotLoaded,
        kNoCudaDevice,
        kNoCudaDeviceFix,
        kLoraKeyWithInitFrom,
        kLoraInitFromNotAdapter,
        kBadRegex,
        kLoraBiasUnsupported,
        kLoraOverRandomInit,
        kModelPathNeither,
        kClassificationPacking,
        kTextFieldIgnored,
        kColumnTwoRoles,
        kNothingToTrain,
        kSectionMissing,
        kKeyMissing,
        kOneOf,
        kPositiveUpTo,
        kWeightsNotSafetensors,
        kNoWeights,
        kModelPathNotDirectory,
        kTokenizerIsDirectory,
        kDataIsDirectory,
        kDataUnreadable,
        kOutputUnderFile,
        kOutputNotWritable,
        kOutputCannotCreate,
        kModelConfigUnreadable,
        kModelConfigNotObject,
        kNotValidJson,
        kModelConfigKey,
        kModelTypeMissing,
        kModelTypeUnsupported,
        kNullNotAllowed,
        kHeadsDivide,
        kKvHeadsDivide,
        kHfCacheModels,
    };
    return all;
}

}  // namespace fts
