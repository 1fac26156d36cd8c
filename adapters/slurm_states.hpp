// What squeue and sacct print about the tasks of a job array, read as SLURM documents it
// (squeue(1) and sacct(1), "JOB STATE CODES"), for the SLURM executor (slurm_executor.hpp):
//   - a state may carry more than its name: sacct prints "CANCELLED by 1000" (the uid that
//     cancelled it), and in its fixed-width columns "CANCELLED+" (a name cut to the column);
//     the state is the leading name, and a name cut short is completed from the known states;
//   - a task's id is JOBID_TASKID ("123_4"); a job array whose tasks have not started is one
//     line "123_[0-4]" (or "123_[0-4%2]", "123_[1,3,5-7]"), which stands for each of them;
//   - a job step ("123_4.batch", "123_4.0") is not a task and is skipped.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sao::adapters {

// The state name of a squeue %T or sacct State field: "CANCELLED by 0" and "CANCELLED+" are
// "CANCELLED", "OUT_OF_ME+" is "OUT_OF_MEMORY"; "" for an empty field.
std::string slurm_state_name(const std::string& field);

// Whether the state is one a job does not leave (COMPLETED, FAILED, CANCELLED, TIMEOUT, ...).
bool slurm_state_ended(const std::string& state);

// What an ended state means, for the message of a run that did not run to its end
// ("cancelled with scancel, ...", "ran out of memory"); "" for the others.
std::string slurm_state_description(const std::string& state);

// The task ids a JobID field stands for: "123_4" -> {"123_4"}, "123_[0-2]" -> {"123_0", "123_1",
// "123_2"}, "123" -> {"123"}; {} for a job step or a field that is not a job id.
std::vector<std::string> slurm_task_ids(const std::string& field);

// squeue --noheader --format=%i|%T|%M: task id -> (state name, elapsed text).
std::map<std::string, std::pair<std::string, std::string>> parse_squeue_lines(
    const std::string& text);

// sacct --noheader --parsable2 --format=JobID,State: task id -> state name. A line for the
// whole pending array stands for each of its tasks, unless a line of the task itself says more.
std::map<std::string, std::string> parse_sacct_lines(const std::string& text);

}  // namespace sao::adapters
