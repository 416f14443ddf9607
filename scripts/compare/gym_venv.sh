# Sourced by the scripts/compare/gym_*.sh and nemo_gym.sh: NeMo Gym 0.7.0 in a cache
# venv, with the pieces its resources servers import that the package does not
# declare (structured_outputs' pinned parsers, math_with_judge's math-verify, the IF
# servers' nltk stack), installed once.
#
# nemo-gym 0.5.0-0.7.0 declare Python >= 3.13.14, newer than pyenv's 3.13.0 here;
# 0.7.0 installs with --ignore-requires-python on 3.13.0 and runs.
# Sets: gym_version, venv, gym_python, gym_package (its resources_servers folder).
gym_version=0.7.0
venv="${CASCADE_CACHE:-$HOME/.cache/cascade}/venv-nemo-gym-$gym_version"
gym_python="$venv/bin/python"
python313="${PYENV_ROOT:-$HOME/.pyenv}/versions/3.13.0/bin/python"
if [ ! -x "$gym_python" ] || ! "$gym_python" -c 'import nemo_gym, xmltodict, math_verify, defusedxml, langdetect' 2>/dev/null; then
  echo "installing nemo-gym $gym_version into $venv" >&2
  [ -x "$gym_python" ] || "$python313" -m venv "$venv"
  "$venv/bin/pip" install -q --ignore-requires-python "nemo-gym==$gym_version"
  "$venv/bin/pip" install -q defusedxml xmltodict==1.0.2 openapi-schema-validator==0.6.3 tomli-w==1.2.0 \
    math-verify==0.8.0 nltk langdetect absl-py immutabledict
fi
gym_package="$("$gym_python" -c 'import os, resources_servers; print(os.path.dirname(resources_servers.__file__))' 2>/dev/null \
  || "$gym_python" -c 'import os, nemo_gym; print(os.path.join(os.path.dirname(os.path.dirname(nemo_gym.__file__)), "resources_servers"))')"
