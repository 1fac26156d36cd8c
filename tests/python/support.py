"""What the Python tests share: the source and build folders (from CTest's environment) and a
fresh scratch folder per test."""
import os
import shutil

SOURCE = os.environ["SAO_SOURCE_DIR"]
BUILD = os.environ["SAO_BINARY_DIR"]
SAO = os.path.join(BUILD, "sao")


def problem(relative):
    return os.path.join(SOURCE, "problems", relative)


def scratch(name):
    folder = os.path.join(BUILD, "python-out", name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    return folder
