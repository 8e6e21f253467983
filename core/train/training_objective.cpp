// The objective a run trains (see training_objective.h): the choice, and the eval loss every objective reports.
#include "core/train/training_objective.h"

#include "core/events/event_sink.h"
#include "core/train/preference_objective.h"

namespace fts {

NamedValues TrainingObjective::takeEvalMetrics() {
    NamedValues out;
    if (m_evalCounted > 0) out["eval_loss"] = m_evalLossSum / double(m_evalCounted);
    m_evalLossSum = 0.0;
    m_evalCounted = 0;
    return out;
}

std::unique_ptr<TrainingObjective> makeTrainingObjective(const ObjectiveSetup& setup) {
    if (setup.cfg.training.preferenceObjective()) {
        auto preference = std::make_unique<PreferenceObjective>(setup);
        if (setup.leader)
            setup.events.log("info", "training.objective \"" + setup.cfg.training.objective + "\": the reference is " +
                                         preference->describe());
        return preference;
    }
    if (setup.data.classification()) return makeClassificationObjective(setup);
    return makeNextTokenObjective(setup);
}

}  // namespace fts
