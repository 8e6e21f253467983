// The GUI's persistent settings (QSettings keys in one place) and the light/dark theme. Invariant: the
// settings hold user choices only; every value has "not set" meaning "the built-in default".
#pragma once
#include <QString>
#include <QStringList>

namespace fts {

namespace settings_keys {
inline constexpr const char* kHosts = "hosts/list";     // the ssh hosts of the Hosts list (fts doctor probes them too)
inline constexpr const char* kLanguage = "language";    // "", "en", "zh_CN"
inline constexpr const char* kTheme = "theme";          // "", "light", "dark"
inline constexpr const char* kStorePath = "storePath";  // "" = $FTS_STORE or the default store
inline constexpr const char* kModelFolders = "modelFolders";  // model picker roots
inline constexpr const char* kGeometry = "window/geometry";
inline constexpr const char* kWindowState = "window/state";
inline constexpr const char* kMainSplit = "window/mainSplit";
inline constexpr const char* kEditorSplit = "window/editorSplit";
inline constexpr const char* kRunsHeader = "window/runsHeader";
inline constexpr const char* kLastRun = "last/runId";
inline constexpr const char* kLastRanks = "last/ranks";
inline constexpr const char* kLastChartTab = "last/runChartTab";
}  // namespace settings_keys

// "dark" switches the application to the Fusion style with a dark palette; "light" to Fusion's standard
// palette; "" keeps the platform's look. Live: widgets get a PaletteChange.
void applyTheme(const QString& theme);
QString currentTheme();

}  // namespace fts
