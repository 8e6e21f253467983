// Classification metrics (see classification_metrics.h), written from scikit-learn's definitions:
// F1 = 2 tp / (2 tp + fp + fn), 0 where that is 0 / 0 (zero_division); macro = the unweighted mean over labels.
#include "core/train/classification_metrics.h"

#include <cmath>
#include <set>

#include "core/util/error.h"

namespace fts {
namespace {

double f1(double tp, double fp, double fn) {
    const double den = 2.0 * tp + fp + fn;
    return den > 0.0 ? 2.0 * tp / den : 0.0;
}

double pearson(const std::vector<double>& p, const std::vector<double>& y) {
    const size_t n = p.size();
    double mp = 0.0, my = 0.0;
    for (size_t i = 0; i < n; ++i) {
        mp += p[i];
        my += y[i];
    }
    mp /= double(n);
    my /= double(n);
    double spy = 0.0, spp = 0.0, syy = 0.0;
    for (size_t i = 0; i < n; ++i) {
        spy += (p[i] - mp) * (y[i] - my);
        spp += (p[i] - mp) * (p[i] - mp);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (spp == 0.0 || syy == 0.0) return std::nan("");
    return std::max(-1.0, std::min(1.0, spy / std::sqrt(spp * syy)));
}

}  // namespace

std::map<std::string, double> classificationMetrics(LabelKind kind, int64_t numLabels, const std::vector<float>& logits,
                                                    const std::vector<float>& targets) {
    const int64_t K = numLabels, width = kind == LabelKind::MultiLabel ? K : 1;
    if (K <= 0 || logits.size() % size_t(K) != 0)
        throw Error("classification metrics: logits are not rows of num_labels");
    const int64_t N = int64_t(logits.size()) / K;
    if (int64_t(targets.size()) != N * width)
        throw Error("classification metrics: one target row per logit row expected");
    std::map<std::string, double> out;
    if (N == 0) return out;
    if (kind == LabelKind::Regression) {
        std::vector<double> p(static_cast<size_t>(N)), y(static_cast<size_t>(N));
        double se = 0.0;
        for (int64_t i = 0; i < N; ++i) {
            p[size_t(i)] = logits[size_t(i)];
            y[size_t(i)] = targets[size_t(i)];
            se += (p[size_t(i)] - y[size_t(i)]) * (p[size_t(i)] - y[size_t(i)]);
        }
        out["mse"] = se / double(N);
        out["pearson"] = pearson(p, y);
        return out;
    }
    if (kind == LabelKind::MultiLabel) {
        std::vector<double> tp(static_cast<size_t>(K)), fp(static_cast<size_t>(K)), fn(static_cast<size_t>(K));
        int64_t exact = 0;
        for (int64_t i = 0; i < N; ++i) {
            bool all = true;
            for (int64_t k = 0; k < K; ++k) {
                const bool pred = logits[size_t(i * K + k)] > 0.0f, truth = targets[size_t(i * K + k)] > 0.5f;
                all = all && pred == truth;
                tp[size_t(k)] += pred && truth;
                fp[size_t(k)] += pred && !truth;
                fn[size_t(k)] += !pred && truth;
            }
            exact += all;
        }
        double macro = 0.0, stp = 0.0, sfp = 0.0, sfn = 0.0;
        for (int64_t k = 0; k < K; ++k) {
            macro += f1(tp[size_t(k)], fp[size_t(k)], fn[size_t(k)]);
            stp += tp[size_t(k)];
            sfp += fp[size_t(k)];
            sfn += fn[size_t(k)];
        }
        out["accuracy"] = double(exact) / double(N);
        out["f1"] = macro / double(K);
        out["f1_micro"] = f1(stp, sfp, sfn);
        return out;
    }
    std::vector<int64_t> pred(static_cast<size_t>(N)), truth(static_cast<size_t>(N));
    int64_t correct = 0;
    for (int64_t i = 0; i < N; ++i) {
        int64_t best = 0;  // the first maximum, as numpy's argmax
        for (int64_t k = 1; k < K; ++k)
            if (logits[size_t(i * K + k)] > logits[size_t(i * K + best)]) best = k;
        pred[size_t(i)] = best;
        truth[size_t(i)] = int64_t(targets[size_t(i)]);
        correct += best == truth[size_t(i)];
    }
    out["accuracy"] = double(correct) / double(N);
    auto classF1 = [&](int64_t c) {
        double tp = 0, fp = 0, fn = 0;
        for (int64_t i = 0; i < N; ++i) {
            tp += pred[size_t(i)] == c && truth[size_t(i)] == c;
            fp += pred[size_t(i)] == c && truth[size_t(i)] != c;
            fn += pred[size_t(i)] != c && truth[size_t(i)] == c;
        }
        return f1(tp, fp, fn);
    };
    if (K == 2) {
        out["f1"] = classF1(1);  // average="binary", pos_label=1
    } else {
        std::set<int64_t> present(pred.begin(), pred.end());  // sklearn's unique_labels(y_true, y_pred)
        present.insert(truth.begin(), truth.end());
        double sum = 0.0;
        for (int64_t c : present) sum += classF1(c);
        out["f1"] = sum / double(present.size());
    }
    return out;
}

}  // namespace fts
