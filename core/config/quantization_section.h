// model.quantization (BitsAndBytesConfig's keys) read into QuantizationSection, and written back; internal to
// core/config (train_config.cpp calls it).
#pragma once
#include "core/config/config_reader.h"
#include "core/config/train_config.h"

namespace fts::config_detail {

// Reads the object at model.quantization. Errors and warnings name the key; the requirement of model.lora and the
// ZeRO stage are checked by the caller once every section is read (checkQuantizationFits).
void parseQuantization(const json& v, IssueList& issues, QuantizationSection& out);

// The cross-section rules: 4-bit weights need model.lora (they cannot be trained), ZeRO stage 3 is refused (its
// parameter partitioning does not take 4-bit tensors), classification data is refused as LoRA is.
void checkQuantizationFits(const TrainConfig& cfg, IssueList& issues);

json quantizationToJson(const QuantizationSection& q);

}  // namespace fts::config_detail
