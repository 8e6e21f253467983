// ConfigForm: the new-run form, one widget per row of configFields(), grouped in collapsible sections,
// kept in sync both ways with a ConfigEditor's JSON. A form edit rewrites only its key in the JSON (key
// order kept; clearing a field removes the key); a JSON edit refreshes every field that shows something
// else. Placeholders are the core's resolved values; errors are the core's issues, shown under the field
// whose key they name. The form holds no config state of its own: the JSON text is the truth.
#pragma once
#include <QHash>
#include <QTimer>
#include <QWidget>

#include "ui/config_field_values.h"
#include "ui/config_fields.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace fts {

class CollapsibleSection;
class MemoryBars;
class SeriesChart;
class ConfigEditor;
class DevicePanel;
class HostsPanel;

class ConfigForm : public QWidget {
    Q_OBJECT
public:
    static constexpr int kRefreshDelayMs = 120;

    explicit ConfigForm(ConfigEditor* editor, QWidget* parent = nullptr);

    // The field's input: a QLineEdit (text, paths, numbers) or a QComboBox (booleans, choices).
    QWidget* fieldWidget(const QString& key) const;
    SeriesChart* lrSchedulePreview() const { return m_lrChart; }
    QLabel* fieldErrorLabel(const QString& key) const;
    // The hint under a field whose "auto" is decided when the run starts, for that field.
    static QString autoAtRunStartText(const QString& key);
    QLabel* fieldLabel(const QString& key) const;
    // The field's current text ("" = not set).
    QString fieldText(const QString& key) const;
    bool isFieldShown(const QString& key) const;
    CollapsibleSection* section(FieldSection s) const { return m_sections.value(int(s)); }
    // True while the JSON text does not parse (the form then shows a banner and is read-only).
    bool jsonBroken() const { return m_jsonBroken; }
    // The config has a `sweep` block: its runs go to the queue (Add to queue), Start is off; a notice says so.
    bool hasSweep() const { return m_hasSweep; }
    QWidget* sweepNotice() const { return m_sweepNotice; }
    QSpinBox* ranksSpin() const { return m_ranks; }
    // CPU or local GPUs: with GPUs checked the ranks are one per GPU (the spin box follows, read-only).
    DevicePanel* devicePanel() const { return m_devices; }
    HostsPanel* hostsPanel() const { return m_hosts; }
    QPushButton* pickModelButton() const { return m_pickModel; }
    QPushButton* previewDataButton() const { return m_previewData; }
    // The per-rank memory estimate (fts::estimateMemory via the editor's validator): a bar against one
    // rank's capacity, the breakdown, and the core's suggestions when it does not fit.
    MemoryBars* estimateBars() const { return m_estimateBars; }
    QLabel* estimateText() const { return m_estimateText; }

    // Refreshes from the editor now (normally 120 ms after the JSON changes).
    void refreshFromJson();
    // Sets a field as if typed (test and picker entry point): writes the JSON immediately.
    void setFieldText(const QString& key, const QString& text);
    // The field's key an issue path belongs to ("" if none): exact, inside the field (betas[0]), or the
    // first field inside the issue's object.
    static QString fieldForIssue(const QString& issueKeyPath);
    void retranslate();

signals:
    void fieldEdited(const QString& key);
    void pickModelRequested();
    void previewDataRequested();
    void queueRequested();  // the sweep notice's "Add to queue"
    void ranksChanged(int ranks);

protected:
    void changeEvent(QEvent* event) override;

private:
    struct Row {
        const ConfigField* field = nullptr;
        QWidget* container = nullptr;  // the row's field part (input + error label)
        QLineEdit* edit = nullptr;
        QComboBox* combo = nullptr;
        QLabel* error = nullptr;
        QLabel* label = nullptr;
        QFormLayout* form = nullptr;
    };
    void buildRow(const ConfigField& field, QFormLayout* form);
    static void linkPeakLearningRate(OrderedJson& doc, const QString& editedKey);
    void applyLrSchedule();  // the preview chart of the Optimisation section
    void writeField(const QString& key);
    void applyIssues();
    void applyPlaceholders(const nlohmann::json& resolved);
    void applyEstimate();
    void updateVisibility(const OrderedJson& doc, const nlohmann::json& resolved);
    void browse(const QString& key);
    static QString widgetText(const Row& row);

    ConfigEditor* m_editor;
    QHash<QString, Row> m_rows;
    QHash<int, CollapsibleSection*> m_sections;
    QLabel* m_banner;
    QWidget* m_sweepNotice = nullptr;
    QLabel* m_sweepText = nullptr;
    QPushButton* m_sweepQueue = nullptr;
    QLabel* m_otherIssues;
    QLabel* m_methodNote;
    QLabel* m_estimateTitle;
    MemoryBars* m_estimateBars;
    QLabel* m_estimateText;
    QSpinBox* m_ranks;
    HostsPanel* m_hosts = nullptr;
    DevicePanel* m_devices;
    QLabel* m_ranksLabel;
    QPushButton* m_pickModel;
    QPushButton* m_previewData;
    SeriesChart* m_lrChart = nullptr;
    QLabel* m_lrNote = nullptr;
    QTimer m_refresh;
    bool m_jsonBroken = false;
    bool m_hasSweep = false;
    bool m_writing = false;
};

}  // namespace fts
