#include <cli/wave2d_Commands.hpp>
#include <wave2d/scene/wave2d_BuiltinScenes.hpp>

#include <algorithm>
#include <iomanip>
#include <string>

namespace wave2d::cli {

void list_scenes(std::ostream& out) {
  struct Row {
    std::string name, grid, steps, description;
  };
  std::vector<Row> rows{{"NAME", "GRID", "STEPS", "DESCRIPTION"}};
  for (auto const& info : builtin_scenes()) {
    Scene const scene = builtin_scene(info.name);
    rows.push_back({std::string(info.name),
                    std::to_string(scene.nx) + " x " + std::to_string(scene.ny),
                    std::to_string(scene.steps), std::string(info.description)});
  }
  std::size_t name_width = 0, grid_width = 0, steps_width = 0;
  for (auto const& row : rows) {
    name_width = std::max(name_width, row.name.size());
    grid_width = std::max(grid_width, row.grid.size());
    steps_width = std::max(steps_width, row.steps.size());
  }
  for (auto const& row : rows) {
    out << std::left << std::setw(int(name_width)) << row.name << "  " << std::right
        << std::setw(int(grid_width)) << row.grid << "  " << std::setw(int(steps_width))
        << row.steps << "  " << row.description << "\n";
  }
}

}  // namespace wave2d::cli
