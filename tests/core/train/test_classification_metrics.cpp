// Eval metrics of classification against scikit-learn 1.7.2 / scipy 1.16.3 on the same logits and targets
// (tests/data/classification/metrics_reference.json, written by make_goldens.py): accuracy, binary and macro F1
// (a class absent from labels and predictions left out), multi-label subset accuracy and macro / micro F1
// (a column never true nor predicted counts 0), MSE and Pearson's r (NaN for a constant side).
#include <QtTest>

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/train/classification_metrics.h"
#include "core/util/atomic_file.h"

#include "tests/support/qtest_suites.h"  // QTEST_MAIN registers this suite in its area's program

using namespace fts;
using nlohmann::json;

class TestClassificationMetrics : public QObject {
    Q_OBJECT
private slots:
    void equalScikitLearn();
};

void TestClassificationMetrics::equalScikitLearn() {
    const json ref =
        json::parse(readFile(std::filesystem::path(FTS_TEST_DATA_DIR) / "classification" / "metrics_reference.json"));
    QCOMPARE(ref["cases"].size(), size_t(8));
    for (const json& c : ref["cases"]) {
        const std::string kind = c["kind"];
        const LabelKind k = kind == "single"  ? LabelKind::SingleLabel
                            : kind == "multi" ? LabelKind::MultiLabel
                                              : LabelKind::Regression;
        std::vector<float> logits, targets;
        for (const json& row : c["logits"])
            for (const json& v : row) logits.push_back(v.get<float>());
        for (const json& row : c["targets"])
            for (const json& v : row) targets.push_back(v.get<float>());
        const auto ours = classificationMetrics(k, c["num_labels"].get<int64_t>(), logits, targets);
        QCOMPARE(ours.size(), c["metrics"].size());
        for (const auto& [name, value] : c["metrics"].items()) {
            QVERIFY2(ours.count(name), name.c_str());
            const double o = ours.at(name);
            if (value.is_null()) {
                QVERIFY2(std::isnan(o), qPrintable(QString("%1 %2: expected NaN, got %3")
                                                       .arg(QString::fromStdString(kind), QString::fromStdString(name))
                                                       .arg(o)));
                continue;
            }
            QVERIFY2(std::fabs(o - value.get<double>()) < 1e-6,
                     qPrintable(QString("%1 (%2 labels) %3: %4, scikit-learn %5")
                                    .arg(QString::fromStdString(kind))
                                    .arg(c["num_labels"].get<int>())
                                    .arg(QString::fromStdString(name))
                                    .arg(o)
                                    .arg(value.get<double>())));
        }
    }
    QVERIFY(classificationMetrics(LabelKind::SingleLabel, 2, {}, {}).empty());
}

QTEST_GUILESS_MAIN(TestClassificationMetrics)
#include "test_classification_metrics.moc"
