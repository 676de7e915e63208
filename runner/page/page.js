// fabriclab page: mounts asciinema-player (inlined before this script) on the
// session embedded in #fl-data (runner/page/page_writer.h) and wires the
// page's scenario buttons to the player's markers.
//
// #t=SECONDS in the address starts playing there (a link to a moment).
// The body's data-player attribute says how far it got: "mounted" once the
// player is created, "failed: ..." if it could not be; data-seeked is where
// a scenario button's seek landed. Tests read them.
(function () {
  'use strict';
  var body = document.body;
  try {
    var data = JSON.parse(document.getElementById('fl-data').textContent);
    var element = document.getElementById('fl-player');
    var match = /(?:^#|&)t=([0-9]+(?:\.[0-9]+)?)/.exec(window.location.hash);
    var startAt = match ? parseFloat(match[1]) : 0;
    var player = AsciinemaPlayer.create({data: data.cast}, element, {
      idleTimeLimit: data.idle_limit_s,
      // Before play: the frame where the first scenario starts (the lab's
      // header and network settings are on screen by then).
      poster: 'npt:' + (startAt > 0 ? startAt : data.poster_s),
      startAt: startAt,
      autoPlay: startAt > 0,
      preload: true,
      fit: 'width',
      controls: true,  // always shown: the scenario marks live on its timeline
      terminalFontSize: 'small'
    });
    body.setAttribute('data-player', 'mounted');

    var buttons = document.querySelectorAll('button[data-marker]');
    Array.prototype.forEach.call(buttons, function (button) {
      button.addEventListener('click', function () {
        var marker = Number(button.getAttribute('data-marker'));
        player.seek({marker: marker}).then(function () {
          // Where the seek landed, in % of the timeline (as the markers are
          // placed on it): tests read this, since the terminal redraws on
          // its own schedule and a screen is no proof of the position.
          var at = 100 * player.getCurrentTime() / player.getDuration();
          body.setAttribute('data-seeked', at.toFixed(4));
          return player.play();
        });
        element.scrollIntoView({behavior: 'smooth', block: 'start'});
      });
    });
  } catch (error) {
    body.setAttribute('data-player', 'failed: ' + error);
    throw error;
  }
})();
